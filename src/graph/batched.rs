//! A full run's store written from its facts spill, in memory bounded by a
//! batch of files rather than by the repository.
//!
//! Two transactions on the fresh store (it is published only when both are
//! in). The first holds what follows from the facts alone: the facts as the
//! spill has them, the lookup tables (each sorted from the spill, one table
//! at a time), the conventions and the paths. The second holds the
//! references: a batch of files is resolved against the first, as an
//! incremental update resolves against the store (`Universe`/`Missing`):
//! the batch's facts are loaded, and the files and names its resolution asks
//! for are loaded until nothing it asks for is missing; it then resolves as
//! a run holding every file would (the invariant incremental updates rest
//! on). On the Linux kernel the definitions of every file (~0.7 GB) and the
//! resolver's lookups over them (~0.5 GB) were held at once before.

use std::collections::{BTreeMap, BTreeSet};

use rayon::prelude::*;

use super::db::{Db, EncodedOut, OutEdges, Snapshot};
use super::resolve::{ref_name, resolve_references, Lookups, Missing, Resolver, Scope, Universe};
use super::spill::FactsSpill;
use super::{FileFacts, GraphError, Result};

/// Encoded batches that may wait for the store's writer.
const BATCHES_IN_FLIGHT: usize = 2;

/// Writes every file of a full run into `fresh`: `files` holds each path
/// with its conventions, `spill` its whole facts.
pub(super) fn write_from_spill(fresh: &Db, files: &BTreeMap<String, FileFacts>, spill: &FactsSpill, generation: &str) -> Result<()> {
    let write = fresh.begin_full(files, Some(spill))?;
    fresh.finish_full(write, generation, files)?;
    let snapshot = fresh.snapshot()?;
    let paths: Vec<&String> = files.keys().collect();
    let mut universe = Universe { paths: files.keys().cloned().collect(), defs: BTreeMap::new(), changed: BTreeSet::new() };
    std::thread::scope(|s| {
        let (batches, received) = std::sync::mpsc::sync_channel::<Vec<EncodedOut>>(BATCHES_IN_FLIGHT);
        let writer = s.spawn(move || {
            let mut write = fresh.begin_out()?;
            for batch in received {
                fresh.write_out(&mut write, batch)?;
            }
            Ok::<_, GraphError>(write)
        });
        // Files resolved together share what they load (a directory's files include the same headers).
        for batch in paths.chunks(spill.batches().files.max(1)) {
            let (resolved, _) = resolve_batch(&snapshot, &mut universe, batch)?;
            let encoded = resolved.par_iter().map(|(path, out)| fresh.encode_edges(path, out)).collect::<Result<Vec<_>>>()?;
            // A writer that stopped says why when joined.
            if batches.send(encoded).is_err() {
                break;
            }
        }
        drop(batches);
        let write = writer.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
        fresh.finish_full(write, generation, files)
    })
}

/// The out-edges of `batch` (sorted paths; in its order), resolved against
/// the store `snapshot` reads, which holds every file's facts and
/// definitions, and the files whose facts were read for it (the batch's and
/// those its references reach). `universe` holds every path; its
/// definitions are this batch's.
///
/// Loaded first: the batch's facts, the definitions of the names its
/// references end in, and the files its imports name. A file whose
/// resolution still asked for something not loaded is resolved again once
/// that is loaded; the others' answers cannot change (a lookup that was
/// answered had all it reads: a name's every definition, a file's facts).
pub(super) fn resolve_batch(snapshot: &Snapshot, universe: &mut Universe, batch: &[&String]) -> Result<(Vec<(String, OutEdges)>, Vec<String>)> {
    universe.defs.clear();
    let mut loaded: BTreeMap<String, FileFacts> = snapshot.facts(batch.iter().copied())?;
    let named: BTreeSet<String> = loaded.values().flat_map(reference_names).collect();
    universe.defs.extend(snapshot.definitions(&named)?);
    let missing = Missing::default();
    let imported = imported_files(&loaded, universe, &missing, batch);
    missing.take();
    let unread: Vec<&String> = imported.iter().filter(|p| !loaded.contains_key(*p)).collect();
    loaded.extend(snapshot.facts(unread)?);
    let mut resolved: BTreeMap<String, OutEdges> = BTreeMap::new();
    let mut pending: Vec<&String> = batch.to_vec();
    while !pending.is_empty() {
        let lookups = Lookups::new(&loaded, Some((&*universe, &missing)));
        let round: Vec<(&String, OutEdges, bool)> = pending
            .par_iter()
            .filter_map(|path| Some((*path, loaded.get(*path)?)))
            .map_init(
                || Resolver::new(&lookups),
                |resolver, (path, f)| {
                    Missing::missed_here();
                    let out = resolve_references(resolver, f, path, &Scope::All).into_out_edges();
                    (path, out, Missing::missed_here())
                },
            )
            .collect();
        drop(lookups);
        let (files, names) = missing.take();
        let files: Vec<String> = files.into_iter().filter(|p| !loaded.contains_key(p)).collect();
        let names: Vec<String> = names.into_iter().filter(|n| !universe.defs.contains_key(n)).collect();
        let before = (loaded.len(), universe.defs.len());
        loaded.extend(snapshot.facts(&files)?);
        universe.defs.extend(snapshot.definitions(&names)?);
        // Nothing more to load: what is left unanswered is not in the repository.
        let progressed = (loaded.len(), universe.defs.len()) != before;
        pending = round.iter().filter(|(_, _, missed)| *missed && progressed).map(|(path, _, _)| *path).collect();
        resolved.extend(round.into_iter().map(|(path, out, _)| (path.clone(), out)));
    }
    Ok((resolved.into_iter().collect(), loaded.into_keys().collect()))
}

/// The files the imports of `batch` name (found from the paths alone).
fn imported_files(loaded: &BTreeMap<String, FileFacts>, universe: &Universe, missing: &Missing, batch: &[&String]) -> BTreeSet<String> {
    let lookups = Lookups::new(loaded, Some((universe, missing)));
    batch
        .par_iter()
        .filter_map(|path| Some((*path, loaded.get(*path)?)))
        .map_init(|| Resolver::new(&lookups), |resolver, (path, f)| f.imports.iter().filter_map(|i| resolver.module_file(path, &i.module)).collect::<Vec<_>>())
        .flatten()
        .collect()
}

/// The last names of a file's references (calls, bases), as the `refs` table keys them.
fn reference_names(f: &FileFacts) -> impl Iterator<Item = String> + '_ {
    let raws = f.symbols.iter().flat_map(|s| s.calls.iter().chain(&s.bases)).chain(&f.module_calls);
    raws.map(|raw| ref_name(raw).into_owned())
}
