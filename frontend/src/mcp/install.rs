//! `git rag mcp install`: the MCP server's entry written into a coding
//! agent's own config file, in that client's format and place, merged by
//! server name: everything else in the file is kept as it was (comments and
//! layout included: JSON and JSONC through a concrete syntax tree, TOML
//! through `toml_edit`), and a second run with the same entry writes nothing.
//!
//! The entry starts `git-rag -C <repository> serve --mcp` by absolute paths,
//! because several clients start servers elsewhere than the repository
//! (Claude Desktop in `/`; Claude Code ignores a `cwd`). `--portable` writes
//! `git-rag serve --mcp` instead, for a project file that is committed and
//! read by clients that start servers in the project (VS Code gets `cwd:
//! ${workspaceFolder}`).

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::Serialize;
use serde_json::{json, Value};

/// The clients whose config files `mcp install` knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Client {
    /// Claude Code: `.mcp.json` (project) or `~/.claude.json` (user).
    ClaudeCode,
    /// Claude Desktop: its `claude_desktop_config.json` (user only).
    ClaudeDesktop,
    /// Cursor: `.cursor/mcp.json` or `~/.cursor/mcp.json`.
    Cursor,
    /// VS Code (Copilot agent mode): `.vscode/mcp.json` or the profile's `mcp.json`.
    Vscode,
    /// OpenAI Codex CLI: `.codex/config.toml` or `~/.codex/config.toml` ($CODEX_HOME).
    Codex,
    /// Windsurf: `~/.codeium/windsurf/mcp_config.json` (user only).
    Windsurf,
    /// Zed: `.zed/settings.json` or its user `settings.json` (`context_servers`).
    Zed,
    /// Gemini CLI: `.gemini/settings.json` or `~/.gemini/settings.json`.
    Gemini,
}

/// How a client's file holds its servers.
struct Layout {
    /// Relative to the repository; `None`: the client reads no project file.
    project: Option<&'static str>,
    /// The key of the table of servers.
    servers_key: &'static str,
    toml: bool,
    /// The entry says `"type": "stdio"` (where the client's own examples do).
    stdio_type: bool,
    /// The entry carries an (empty) `env` (where the client requires one).
    env: bool,
}

impl Client {
    fn layout(self) -> Layout {
        let json = |project, servers_key, stdio_type, env| Layout { project, servers_key, toml: false, stdio_type, env };
        match self {
            Client::ClaudeCode => json(Some(".mcp.json"), "mcpServers", true, false),
            Client::ClaudeDesktop => json(None, "mcpServers", false, false),
            Client::Cursor => json(Some(".cursor/mcp.json"), "mcpServers", false, false),
            Client::Vscode => json(Some(".vscode/mcp.json"), "servers", true, false),
            Client::Codex => Layout { project: Some(".codex/config.toml"), servers_key: "mcp_servers", toml: true, stdio_type: false, env: false },
            Client::Windsurf => json(None, "mcpServers", false, false),
            // Older Zed builds require `args` and `env` present.
            Client::Zed => json(Some(".zed/settings.json"), "context_servers", false, true),
            Client::Gemini => json(Some(".gemini/settings.json"), "mcpServers", false, false),
        }
    }

    /// The client's user-wide file on this system.
    fn user_file(self) -> Result<PathBuf> {
        let home = home_dir()?;
        let app_config = || -> PathBuf {
            if cfg!(target_os = "macos") {
                home.join("Library/Application Support")
            } else if cfg!(windows) {
                std::env::var_os("APPDATA").map(PathBuf::from).unwrap_or_else(|| home.join("AppData/Roaming"))
            } else {
                std::env::var_os("XDG_CONFIG_HOME").map(PathBuf::from).filter(|p| p.is_absolute()).unwrap_or_else(|| home.join(".config"))
            }
        };
        Ok(match self {
            Client::ClaudeCode => home.join(".claude.json"),
            Client::ClaudeDesktop => app_config().join("Claude/claude_desktop_config.json"),
            Client::Cursor => home.join(".cursor/mcp.json"),
            Client::Vscode => app_config().join("Code/User/mcp.json"),
            Client::Codex => std::env::var_os("CODEX_HOME").map(PathBuf::from).unwrap_or_else(|| home.join(".codex")).join("config.toml"),
            Client::Windsurf => home.join(".codeium/windsurf/mcp_config.json"),
            Client::Zed if cfg!(windows) => app_config().join("Zed/settings.json"),
            Client::Zed => std::env::var_os("XDG_CONFIG_HOME")
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
                .unwrap_or_else(|| home.join(".config"))
                .join("zed/settings.json"),
            Client::Gemini => home.join(".gemini/settings.json"),
        })
    }
}

fn home_dir() -> Result<PathBuf> {
    let var = if cfg!(windows) { "USERPROFILE" } else { "HOME" };
    std::env::var_os(var).map(PathBuf::from).filter(|p| p.is_absolute()).with_context(|| format!("${var} is not set: cannot find the client's user config"))
}

/// What `mcp install` was asked for.
pub struct Request<'a> {
    /// The user-wide file instead of the project's.
    pub user: bool,
    pub portable: bool,
    /// The server's name in the file.
    pub name: &'a str,
    /// The repository the server answers for.
    pub repo: &'a Path,
}

/// What became of the server's entry in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    Added,
    /// An entry of that name said something else: replaced whole.
    Updated,
    /// The same entry was there: the file is not written.
    Unchanged,
}

/// What was (or would be) written.
#[derive(Debug, Serialize)]
pub struct Installed {
    pub client: Client,
    pub path: PathBuf,
    pub scope: &'static str,
    pub action: Change,
    pub entry: Value,
    /// The file's content after the change.
    #[serde(skip)]
    pub content: String,
}

/// The generic `mcpServers` JSON, for a client `mcp install` does not know.
pub fn generic(request: &Request) -> Result<String> {
    let entry = entry(request, &Layout { project: None, servers_key: "mcpServers", toml: false, stdio_type: false, env: false })?;
    Ok(format!("{}\n", serde_json::to_string_pretty(&json!({ "mcpServers": { request.name: entry } }))?))
}

/// Merges the entry into the client's file; writes it unless `dry_run`.
pub fn install(client: Client, request: &Request, dry_run: bool) -> Result<Installed> {
    let layout = client.layout();
    let (path, scope) = match (request.user, layout.project) {
        (false, Some(project)) => (request.repo.join(project), "project"),
        (false, None) | (true, _) => (client.user_file()?, "user"),
    };
    let entry = entry(request, &layout)?;
    let before = match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let text = before.as_deref().unwrap_or("");
    let (content, action) =
        if layout.toml { merge_toml(text, layout.servers_key, request.name, &entry) } else { merge_json(text, layout.servers_key, request.name, &entry) }
            .with_context(|| format!("{} is not valid {}: fix it first, nothing was changed", path.display(), if layout.toml { "TOML" } else { "JSON" }))?;
    if !dry_run && action != Change::Unchanged {
        write_keeping_mode(&path, &content)?;
    }
    Ok(Installed { client, path, scope, action, entry, content })
}

/// The server's entry in the client's shape.
fn entry(request: &Request, layout: &Layout) -> Result<Value> {
    let (command, mut args) = if request.portable {
        ("git-rag".to_string(), vec![])
    } else {
        let exe = std::env::current_exe().context("cannot find this git-rag's own path")?;
        let exe = exe.canonicalize().unwrap_or(exe);
        let repo = request.repo.canonicalize().unwrap_or_else(|_| request.repo.to_path_buf());
        (exe.to_string_lossy().into_owned(), vec!["-C".to_string(), repo.to_string_lossy().into_owned()])
    };
    args.extend(["serve".to_string(), "--mcp".to_string()]);
    let mut entry = serde_json::Map::new();
    if layout.stdio_type {
        entry.insert("type".into(), json!("stdio"));
    }
    entry.insert("command".into(), json!(command));
    entry.insert("args".into(), json!(args));
    if layout.env {
        entry.insert("env".into(), json!({}));
    }
    if request.portable && layout.servers_key == "servers" {
        // VS Code starts servers in the workspace folder only when told.
        entry.insert("cwd".into(), json!("${workspaceFolder}"));
    }
    Ok(Value::Object(entry))
}

/// `text` (JSON or JSONC; empty: a new file) with `servers_key.name` set to
/// `entry`, all else as it was; and what that did to the entry.
fn merge_json(text: &str, servers_key: &str, name: &str, entry: &Value) -> Result<(String, Change)> {
    use jsonc_parser::cst::CstRootNode;
    let source = if text.trim().is_empty() { "{}\n" } else { text };
    let root = CstRootNode::parse(source, &jsonc_parser::ParseOptions::default()).map_err(|e| anyhow::anyhow!("{e}"))?;
    let Some(top) = root.object_value() else { bail!("its top level is not an object") };
    let Some(servers) = top.object_value_or_create(servers_key) else { bail!("its \"{servers_key}\" is not an object") };
    let action = match servers.get(name) {
        Some(prop) => {
            // The same entry, however laid out, is left alone.
            let written = prop.value().map(|v| v.to_string()).unwrap_or_default();
            let same = jsonc_parser::parse_to_value(&written, &Default::default()).ok().flatten().is_some_and(|v| &from_jsonc(v) == entry);
            if same {
                return Ok((text.to_string(), Change::Unchanged));
            }
            prop.set_value(to_cst(entry));
            Change::Updated
        }
        None => {
            servers.append(name, to_cst(entry));
            Change::Added
        }
    };
    let mut out = root.to_string();
    if !out.ends_with('\n') {
        out.push('\n');
    }
    Ok((out, action))
}

/// A JSONC value (comments, trailing commas) as plain JSON, to compare.
fn from_jsonc(value: jsonc_parser::JsonValue) -> Value {
    use jsonc_parser::JsonValue as J;
    match value {
        J::String(s) => Value::String(s.into_owned()),
        J::Number(n) => serde_json::from_str(n).unwrap_or(Value::Null),
        J::Boolean(b) => Value::Bool(b),
        J::Null => Value::Null,
        J::Array(a) => Value::Array(a.into_iter().map(from_jsonc).collect()),
        J::Object(o) => Value::Object(o.into_iter().map(|(k, v)| (k, from_jsonc(v))).collect()),
    }
}

fn to_cst(value: &Value) -> jsonc_parser::cst::CstInputValue {
    use jsonc_parser::cst::CstInputValue as V;
    match value {
        Value::Null => V::Null,
        Value::Bool(b) => V::Bool(*b),
        Value::Number(n) => V::Number(n.to_string()),
        Value::String(s) => V::String(s.clone()),
        Value::Array(a) => V::Array(a.iter().map(to_cst).collect()),
        Value::Object(o) => V::Object(o.iter().map(|(k, v)| (k.clone(), to_cst(v))).collect()),
    }
}

/// [`merge_json`] for TOML: the entry is the table `[servers_key.name]`.
fn merge_toml(text: &str, servers_key: &str, name: &str, entry: &Value) -> Result<(String, Change)> {
    use toml_edit::{Array, DocumentMut, Item, Table};
    let mut doc: DocumentMut = text.parse()?;
    let mut table = Table::new();
    for (key, value) in entry.as_object().into_iter().flatten() {
        let item = match value {
            Value::String(s) => toml_edit::value(s.as_str()),
            Value::Array(a) => toml_edit::value(a.iter().filter_map(Value::as_str).collect::<Array>()),
            Value::Object(o) if o.is_empty() => Item::Table(Table::new()),
            other => bail!("cannot write {other} into TOML"),
        };
        table.insert(key, item);
    }
    let servers = doc.entry(servers_key).or_insert_with(|| {
        let mut t = Table::new();
        t.set_implicit(true);
        Item::Table(t)
    });
    let Some(servers) = servers.as_table_mut() else { bail!("its `{servers_key}` is not a table") };
    let action = match servers.get(name) {
        Some(existing) if same_toml(existing, &table) => return Ok((text.to_string(), Change::Unchanged)),
        Some(_) => Change::Updated,
        None => Change::Added,
    };
    servers.insert(name, Item::Table(table));
    Ok((doc.to_string(), action))
}

/// Whether an existing `[servers.name]` says what `table` says.
fn same_toml(existing: &toml_edit::Item, table: &toml_edit::Table) -> bool {
    let Some(existing) = existing.as_table_like() else { return false };
    existing.len() == table.len() && table.iter().all(|(k, v)| existing.get(k).is_some_and(|e| e.to_string().trim() == v.to_string().trim()))
}

/// Writes `content` to `path` through a file beside it renamed over it
/// (a reader never sees half a file), keeping the old file's permissions.
fn write_keeping_mode(path: &Path, content: &str) -> Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir).with_context(|| format!("cannot write into {}", dir.display()))?;
    std::io::Write::write_all(&mut tmp, content.as_bytes()).with_context(|| format!("cannot write {}", path.display()))?;
    if let Ok(meta) = std::fs::metadata(path) {
        let _ = tmp.as_file().set_permissions(meta.permissions());
    }
    tmp.persist(path).map_err(|e| e.error).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry_of(name: &str) -> Value {
        json!({"command": format!("/bin/{name}"), "args": ["serve", "--mcp"]})
    }

    #[test]
    fn json_keeps_other_servers_comments_and_order_and_is_idempotent() {
        let before = "{\n  // my servers\n  \"theme\": \"dark\",\n  \"mcpServers\": {\n    \"other\": { \"command\": \"x\" }, // keep me\n  },\n}\n";
        let (after, action) = merge_json(before, "mcpServers", "git-rag", &entry_of("a")).unwrap();
        assert_eq!(action, Change::Added);
        assert!(after.contains("// my servers") && after.contains("// keep me") && after.contains("\"theme\": \"dark\""), "{after}");
        assert!(after.find("\"other\"").unwrap() < after.find("\"git-rag\"").unwrap(), "{after}");
        let (again, action) = merge_json(&after, "mcpServers", "git-rag", &entry_of("a")).unwrap();
        assert_eq!((again.as_str(), action), (after.as_str(), Change::Unchanged));
        let (changed, action) = merge_json(&after, "mcpServers", "git-rag", &entry_of("b")).unwrap();
        assert_eq!(action, Change::Updated);
        assert!(changed.contains("/bin/b") && !changed.contains("/bin/a") && changed.contains("// keep me"), "{changed}");
    }

    #[test]
    fn json_refuses_what_it_cannot_merge_without_loss() {
        for bad in ["[1, 2]", "{\"mcpServers\": 3}", "{ \"a\": "] {
            assert!(merge_json(bad, "mcpServers", "git-rag", &entry_of("a")).is_err(), "{bad}");
        }
        let (fresh, _) = merge_json("", "servers", "git-rag", &entry_of("a")).unwrap();
        assert_eq!(serde_json::from_str::<Value>(&fresh).unwrap(), json!({"servers": {"git-rag": entry_of("a")}}));
    }

    #[test]
    fn toml_keeps_other_tables_and_is_idempotent() {
        let before = "# codex settings\nmodel = \"o3\"\n\n[mcp_servers.other]\ncommand = \"x\"\nargs = []\n";
        let (after, action) = merge_toml(before, "mcp_servers", "git-rag", &entry_of("a")).unwrap();
        assert_eq!(action, Change::Added);
        assert!(
            after.starts_with("# codex settings\nmodel = \"o3\"") && after.contains("[mcp_servers.other]") && after.contains("[mcp_servers.git-rag]"),
            "{after}"
        );
        let parsed: toml_edit::DocumentMut = after.parse().unwrap();
        assert_eq!(parsed["mcp_servers"]["git-rag"]["command"].as_str(), Some("/bin/a"));
        let (again, action) = merge_toml(&after, "mcp_servers", "git-rag", &entry_of("a")).unwrap();
        assert_eq!((again.as_str(), action), (after.as_str(), Change::Unchanged));
        assert_eq!(merge_toml(&after, "mcp_servers", "git-rag", &entry_of("b")).unwrap().1, Change::Updated);
        assert!(merge_toml("mcp_servers = 1\n", "mcp_servers", "git-rag", &entry_of("a")).is_err());
    }
}
