//! Each segment's sum of its live documents' field lengths (BM25's
//! `total_num_tokens`, counted as [`super::ExactStats`] counts it), kept
//! beside the index in `norm_sums.json` once a run's merges are done, so
//! that a query process reads a few numbers instead of every document's
//! norm of every field (on the Linux kernel's 2 M chunks, ~25 ms a process).
//! A cache: keyed by segment, deletes and field, so a stale entry is never
//! used; a missing or unreadable file means computing as before.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use tantivy::index::SegmentId;
use tantivy::schema::Field;
use tantivy::{Index, SegmentReader};

const FILE: &str = "norm_sums.json";

type Key = (SegmentId, Option<tantivy::Opstamp>, Field);

fn sums() -> &'static Mutex<HashMap<Key, u64>> {
    static SUMS: std::sync::OnceLock<Mutex<HashMap<Key, u64>>> = std::sync::OnceLock::new();
    SUMS.get_or_init(Default::default)
}

/// One entry of the file.
#[derive(Serialize, Deserialize)]
struct Entry {
    segment: String,
    deletes: Option<tantivy::Opstamp>,
    field: u32,
    tokens: u64,
}

/// Takes the sums saved beside the index at `root` into this process's
/// memo; a missing or damaged file leaves them to be computed.
pub(super) fn load(root: &Path) {
    let Ok(bytes) = std::fs::read(root.join(FILE)) else { return };
    let Ok(entries) = serde_json::from_slice::<Vec<Entry>>(&bytes) else { return };
    let Ok(mut memo) = sums().lock() else { return };
    for e in entries {
        if let Ok(segment) = SegmentId::from_uuid_string(&e.segment) {
            memo.insert((segment, e.deletes, Field::from_field_id(e.field)), e.tokens);
        }
    }
}

/// Computes (or takes from the memo) every segment's sums of `indexes`,
/// for each field with norms, and saves them beside the index at `root`.
pub(super) fn save(root: &Path, indexes: [&Index; 2]) -> Result<(), String> {
    let mut entries = Vec::new();
    for index in indexes {
        let reader = index.reader_builder().reload_policy(tantivy::ReloadPolicy::Manual).try_into().map_err(|e: tantivy::TantivyError| e.to_string())?;
        let searcher: tantivy::Searcher = reader.searcher();
        let fields: Vec<Field> = index.schema().fields().filter(|(_, e)| e.is_indexed() && e.has_fieldnorms()).map(|(f, _)| f).collect();
        for seg in searcher.segment_readers() {
            for &field in &fields {
                let norms = seg.get_fieldnorms_reader(field).map_err(|e| e.to_string())?;
                let tokens = segment_tokens(seg, field, &norms);
                entries.push(Entry { segment: seg.segment_id().uuid_string(), deletes: seg.delete_opstamp(), field: field.field_id(), tokens });
            }
        }
    }
    let json = serde_json::to_vec(&entries).map_err(|e| e.to_string())?;
    crate::stores::fs::write_atomic(&root.join(FILE), &json, None).map_err(|(path, e)| format!("cannot write {}: {e}", path.display()))
}

/// A segment's sum of its live documents' field lengths, computed once per
/// process for each (segment, deletes, field): every search's BM25 weights
/// ask for it, and summing it reads every document's field norm (on the
/// Linux kernel's 3.8 M symbols, ~6 ms a field, twice per lookup of one
/// definition).
pub(super) fn segment_tokens(seg: &SegmentReader, field: Field, norms: &tantivy::fieldnorm::FieldNormReader) -> u64 {
    let key = (seg.segment_id(), seg.delete_opstamp(), field);
    let sums = sums();
    if let Some(n) = sums.lock().ok().and_then(|m| m.get(&key).copied()) {
        return n;
    }
    let n = norm_sum(seg, field).unwrap_or_else(|| seg.doc_ids_alive().map(|doc| u64::from(norms.fieldnorm(doc))).sum::<u64>());
    if let Ok(mut m) = sums.lock() {
        // Segments merged away leave entries behind: a long-running server starts over now and then.
        if m.len() >= 4096 {
            m.clear();
        }
        m.insert(key, n);
    }
    n
}

/// [`segment_tokens`] from the field's norms as stored (a byte per
/// document): counted by norm, then weighed, which is several times faster
/// than decoding each document's norm. `None` when the field has no stored norms.
pub(super) fn norm_sum(seg: &SegmentReader, field: Field) -> Option<u64> {
    let bytes = seg.fieldnorms_readers().get_inner_file().open_read(field)?.read_bytes().ok()?;
    let bytes = bytes.as_slice();
    if bytes.len() != seg.max_doc() as usize {
        return None;
    }
    let mut count = [0u64; 256];
    match seg.alive_bitset() {
        None => bytes.iter().for_each(|&id| count[usize::from(id)] += 1),
        Some(_) => seg.doc_ids_alive().for_each(|doc| count[usize::from(bytes[doc as usize])] += 1),
    }
    Some(count.iter().enumerate().map(|(id, n)| n * u64::from(tantivy::fieldnorm::FieldNormReader::id_to_fieldnorm(id as u8))).sum())
}

#[cfg(test)]
mod tests {
    use super::*;
    use tantivy::schema::{Schema, TEXT};
    use tantivy::{doc, Term};

    /// Counted from the stored bytes, the norms sum as document by document,
    /// with deletes and without; what is saved is that sum, per segment,
    /// deletes and field; a damaged file is passed over.
    #[test]
    fn norm_sums_are_those_document_by_document_and_saved_as_such() {
        let mut b = Schema::builder();
        let text = b.add_text_field("text", TEXT);
        let index = Index::create_in_ram(b.build());
        let mut writer: tantivy::IndexWriter = index.writer_with_num_threads(1, 15_000_000).expect("writer");
        for i in 0..300 {
            let words: Vec<String> = (0..(i * 37) % 90).map(|w| format!("w{w}")).collect();
            writer.add_document(doc!(text => format!("doc{} {}", i % 7, words.join(" ")))).expect("add");
        }
        writer.commit().expect("commit");
        let by_doc = |seg: &SegmentReader| seg.doc_ids_alive().map(|d| u64::from(seg.get_fieldnorms_reader(text).expect("norms").fieldnorm(d))).sum::<u64>();
        for delete in [false, true] {
            if delete {
                writer.delete_term(Term::from_field_text(text, "doc3"));
                writer.commit().expect("commit");
            }
            let reader = index.reader().expect("reader");
            reader.reload().expect("reload");
            let searcher = reader.searcher();
            for seg in searcher.segment_readers() {
                assert_eq!(seg.has_deletes(), delete);
                assert_eq!(norm_sum(seg, text), Some(by_doc(seg)));
            }
        }
        let dir = tempfile::tempdir().expect("tempdir");
        save(dir.path(), [&index, &index]).expect("save");
        let entries: Vec<Entry> = serde_json::from_slice(&std::fs::read(dir.path().join(FILE)).expect("read")).expect("json");
        let reader = index.reader().expect("reader");
        let searcher = reader.searcher();
        let seg = &searcher.segment_readers()[0];
        assert_eq!(entries.len(), 2, "one segment, one field, twice");
        assert!(entries.iter().all(|e| e.tokens == by_doc(seg) && e.segment == seg.segment_id().uuid_string() && e.deletes == seg.delete_opstamp()));
        std::fs::write(dir.path().join(FILE), b"{not json").expect("write");
        load(dir.path());
    }
}
