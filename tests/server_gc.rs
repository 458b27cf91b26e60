//! `git rag gc` against a real Qdrant server (`QDRANT_URL`; skipped without):
//! the collections of a branch gone from `origin` go, and the shared vector
//! cache keeps exactly what some index on the server references. gc reads
//! the whole server: the test holds it alone (`common::shared_server_alone`).

use std::collections::BTreeSet;

use crate::common::{clone, git_in, json_ok, rag_env, stdout, TestRepo};
use git_rag::stores::vector::server::{ServerOptions, ServerStore};
use git_rag::stores::vector::{Collection, VectorStore};
use serde_json::Value;

/// The cache ids the points of one index (`dump-vectors`) use.
fn cache_ids(dump: &Value) -> BTreeSet<u64> {
    ["files", "symbols", "semantic", "patterns"]
        .iter()
        .flat_map(|c| dump[c].as_array().expect("points").iter())
        .map(|p| u64::from_str_radix(p["payload"]["cache_id"].as_str().expect("every point names its cached vector"), 16).expect("hex"))
        .collect()
}

#[test]
#[ignore = "needs a Qdrant server (QDRANT_URL) and the model; scripts/test.sh starts one and runs it"]
fn gc_prunes_gone_branches_and_unreferenced_cached_vectors() {
    // gc reads the whole server: no other test writes to it meanwhile.
    let (url, _alone) = crate::common::require_server_alone();
    let origin = TestRepo::new();
    origin.write(
        "ledger.py",
        "def post_entry(book, amount):\n    \"\"\"Add a double-entry posting to the ledger book.\"\"\"\n    book.append((amount, -amount))\n",
    );
    origin.commit("main");
    origin.git(&["checkout", "-q", "-b", "feature/tax"]);
    // Text no other index on the server holds: its vectors go with the branch.
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    origin.write("tax.py", format!("def vat_{nanos}(net):\n    \"\"\"Value added tax of a net amount, run {nanos}.\"\"\"\n    return net * 0.2\n"));
    origin.commit("feature");
    origin.git(&["checkout", "-q", "main"]);
    let scratch = tempfile::tempdir().expect("tempdir");
    let prefix = format!("git_rag_gc_{}_{}", std::process::id(), nanos % 1_000_000_000);
    let env = [("QDRANT_URL", url.as_str())];
    let mut dumps = Vec::new();
    for (i, branch) in ["main", "feature/tax"].iter().enumerate() {
        let ci = clone(origin.path(), &scratch.path().join(format!("ci{i}")), &["--branch", branch]);
        git_in(&ci, &["config", "rag.qdrantPrefix", &prefix]);
        json_ok(&ci, &["index", "--ci", "--json", "-q", "--branch", branch], &env);
        dumps.push(json_ok(&ci, &["dump-vectors", "--branch", branch], &env));
    }
    let (main_ids, feature_ids) = (cache_ids(&dumps[0]), cache_ids(&dumps[1]));
    let only_feature: Vec<u64> = feature_ids.difference(&main_ids).copied().collect();
    assert!(!only_feature.is_empty());

    let dev = clone(origin.path(), &scratch.path().join("dev"), &["--branch", "main"]);
    git_in(&dev, &["config", "rag.qdrantPrefix", &prefix]);
    let ask = || json_ok(&dev, &["query", "post an entry to the ledger", "--json", "--branch", "main"], &env)["results"].clone();
    let before = ask();

    // The branch still exists: nothing of this repository is gone.
    let dry = json_ok(&dev, &["gc", "--json"], &env);
    assert_eq!(dry["gone_branches"], serde_json::json!([]), "{dry}");
    origin.git(&["branch", "-D", "feature/tax"]);
    let dry = json_ok(&dev, &["gc", "--json"], &env);
    let feature_prefix = format!("{prefix}_feature_tax");
    assert_eq!(dry["gone_branches"], serde_json::json!([feature_prefix]), "{dry}");
    assert_eq!(dry["collections"].as_array().map(Vec::len), Some(5), "four tree collections and the state: {dry}");
    assert_eq!(dry["applied"], false);
    assert!(dry["unreferenced"].as_u64().unwrap_or(0) >= only_feature.len() as u64, "{dry}");

    // A dry run deleted nothing.
    let model = git_rag::semantic::embed::ModelSource::default_onnx().identify().expect("model");
    let opts = ServerOptions { url: url.clone(), api_key: None, prefix: prefix.clone(), timeout: std::time::Duration::from_secs(30) };
    let cache = ServerStore::connect_cache(opts, model.dims, &model.id, false).expect("server").expect("the cache exists");
    assert_eq!(cache.vectors(Collection::VectorCache, &only_feature).expect("lookup").len(), only_feature.len());

    let done = json_ok(&dev, &["gc", "--yes", "--json"], &env);
    assert_eq!(done["applied"], true, "{done}");
    // The feature branch's collections are gone, main's are whole.
    let out = rag_env(&dev, &["dump-vectors", "--branch", "feature/tax"], &env);
    assert!(!out.status.success(), "the branch's collections are gone: {}", stdout(&out));
    assert_eq!(json_ok(&dev, &["dump-vectors", "--branch", "main"], &env), dumps[0]);
    // The cache holds what main references, and nothing only the branch used.
    let main_list: Vec<u64> = main_ids.iter().copied().collect();
    assert_eq!(cache.vectors(Collection::VectorCache, &main_list).expect("lookup").len(), main_list.len());
    assert!(cache.vectors(Collection::VectorCache, &only_feature).expect("lookup").is_empty());
    // Exactly the referenced vectors: a second look finds nothing to delete.
    let again = json_ok(&dev, &["gc", "--json"], &env);
    assert_eq!((again["unreferenced"].as_u64(), again["cached"].as_u64()), (Some(0), again["referenced"].as_u64()), "{again}");
    assert_eq!(ask(), before, "answers unchanged");
}
