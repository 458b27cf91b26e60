//! The state file written by a real run conforms to `state/rag_index_state.schema.json`
//! (required keys, no unknown keys, id patterns).

use serde_json::Value;

fn check_object(value: &Value, schema: &Value, what: &str) {
    let obj = value.as_object().unwrap_or_else(|| panic!("{what} is not an object"));
    let props = schema["properties"].as_object().expect("properties");
    for req in schema["required"].as_array().expect("required") {
        let key = req.as_str().expect("key");
        assert!(obj.contains_key(key), "{what}: missing required key {key}");
    }
    for (key, v) in obj {
        let prop = props.get(key).unwrap_or_else(|| panic!("{what}: key {key} is not in the schema"));
        if let Some(pattern) = prop["pattern"].as_str() {
            if let Some(s) = v.as_str() {
                let hex_len: Vec<usize> = if pattern.contains("{40}") {
                    vec![40, 64]
                } else if pattern.contains("{32}") {
                    vec![32]
                } else {
                    vec![16]
                };
                assert!(hex_len.contains(&s.len()) && s.chars().all(|c| c.is_ascii_hexdigit()), "{what}.{key} = {s} does not match {pattern}");
            }
        }
        if let Some(c) = prop.get("const") {
            assert_eq!(v, c, "{what}.{key}");
        }
    }
}

#[test]
fn state_file_matches_its_schema() {
    let schema: Value = serde_json::from_str(include_str!("../state/rag_index_state.schema.json")).expect("schema parses");
    let repo = crate::common::TestRepo::new();
    repo.write("a.py", "class A:\n    def m(self):\n        return 1\n");
    repo.write("b.md", "# Title\n\ntext\n");
    repo.commit("one");
    repo.rag_ok(&["index"]);
    let text = std::fs::read_to_string(repo.default_index_dir().join(".rag_index_state.json")).expect("state");
    let state: Value = serde_json::from_str(&text).expect("json");
    check_object(&state, &schema, "state");
    assert!(state.get("files").is_none(), "the per-file records are kept in files.redb, not in the state file");
    // The records, as `dump-state` shows them, have the shape of `$defs/file`.
    let dumped = git_rag::dump_state(&repo.default_index_dir()).expect("dump-state");
    let file_schema = &schema["$defs"]["file"];
    assert!(!dumped["files"].as_object().expect("files").is_empty());
    for (path, file) in dumped["files"].as_object().expect("files") {
        check_object(file, file_schema, path);
        for id in file["chunks"].as_array().expect("chunks") {
            let id = id.as_str().expect("id");
            assert!(id.len() == 32 && id.chars().all(|c| c.is_ascii_hexdigit()), "{id}");
        }
        let lang = file["language"].as_str().expect("language");
        assert!(file_schema["properties"]["language"]["enum"].as_array().expect("enum").iter().any(|e| e == lang));
    }
    assert!(!repo.default_index_dir().join(".rag_index_pending.json").exists(), "journal removed after a run");
}
