use git_rag::chunk::{self, ChunkOptions};
#[test]
fn dump() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/chunker");
    let mut names: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    for n in names {
        let data = std::fs::read(format!("{dir}/{n}")).unwrap();
        let fc = chunk::chunk_file(&n, &data, &ChunkOptions::default());
        println!("=== {n} {:?} errors={} nonws={}", fc.language, fc.has_errors, chunk::non_ws_len(&data));
        for s in &fc.symbols {
            println!("  SYM {} {:?} {}-{} parent={:?} doc_start={:?} sig={:?}", s.qualified_name, s.kind, s.span.start_line, s.span.end_line, s.parent, s.doc_start, s.signature);
        }
        for i in &fc.imports { println!("  IMP {:?}", i); }
        let idx: std::collections::HashMap<_, _> = fc.chunks.iter().enumerate().map(|(i, c)| (c.id.clone(), i)).collect();
        for (i, c) in fc.chunks.iter().enumerate() {
            println!("  CH#{i} {:?} {:?} {}-{} parent={:?} syms={:?} size={}", c.kind, c.symbol, c.start_line, c.end_line, c.parent_id.as_ref().map(|p| idx[p]), c.symbols, chunk::non_ws_len(c.content.as_bytes()));
            if matches!(c.kind, chunk::ChunkKind::Class | chunk::ChunkKind::Interface) {
                println!("{}", c.content);
            }
        }
    }
}
