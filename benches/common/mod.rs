//! What the benches share: the documents git-rag embeds for a repository.

use std::path::Path;

use git_rag::analysis::chunk::{chunk_file, ChunkOptions};
use git_rag::git::{BlobReader, EntryKind, Repo};
use git_rag::semantic::docs::Doc;

/// Every point's document for the files at the repository's HEAD, as an
/// index run makes them (binary files left out).
pub fn head_documents(repo_dir: &Path, model_id: &str) -> Result<Vec<Doc>, Box<dyn std::error::Error>> {
    let repo = Repo::discover(repo_dir)?;
    let head = repo.head_commit()?.ok_or("the repository has no commits")?;
    let reader = BlobReader::new(&repo);
    let mut docs = Vec::new();
    for f in repo.list_files(&head)? {
        if f.kind != EntryKind::Blob {
            continue;
        }
        let data = reader.read(&f.id)?;
        if git_rag::analysis::lang::looks_binary(&data) {
            continue;
        }
        let chunks = chunk_file(&f.path, &data, &ChunkOptions::default());
        docs.extend(git_rag::semantic::docs::documents(&f.path, &f.id.to_string(), &chunks, model_id));
    }
    Ok(docs)
}
