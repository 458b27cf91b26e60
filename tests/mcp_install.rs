//! `git rag mcp install`: every client's file, project and user, written in
//! its own format beside what it already held (other servers, settings,
//! comments), unchanged by a second run, left alone by `--print`; and the
//! entry written starts a server that answers for the repository.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use crate::common::mcp::Mcp;
use crate::common::*;

const CLIENTS: [&str; 8] = ["claude-code", "claude-desktop", "cursor", "vscode", "codex", "windsurf", "zed", "gemini"];

/// `mcp install` with `home` as the user's home (and config folders).
fn install(repo: &TestRepo, home: &Path, args: &[&str]) -> Output {
    let mut all = vec!["mcp", "install"];
    all.extend_from_slice(args);
    let (config, codex) = (home.join(".config"), home.join(".codex"));
    rag_env(repo.path(), &all, &[("HOME", home.to_str().unwrap()), ("XDG_CONFIG_HOME", config.to_str().unwrap()), ("CODEX_HOME", codex.to_str().unwrap())])
}

/// Where each client's file is, for the scope asked.
fn file_of(client: &str, repo: &Path, home: &Path, user: bool) -> PathBuf {
    let project = match client {
        "claude-code" => Some(".mcp.json"),
        "cursor" => Some(".cursor/mcp.json"),
        "vscode" => Some(".vscode/mcp.json"),
        "codex" => Some(".codex/config.toml"),
        "zed" => Some(".zed/settings.json"),
        "gemini" => Some(".gemini/settings.json"),
        _ => None,
    };
    match (user, project) {
        (false, Some(p)) => repo.join(p),
        _ => home.join(match client {
            "claude-code" => ".claude.json",
            "claude-desktop" if cfg!(target_os = "macos") => "Library/Application Support/Claude/claude_desktop_config.json",
            "claude-desktop" => ".config/Claude/claude_desktop_config.json",
            "cursor" => ".cursor/mcp.json",
            "vscode" if cfg!(target_os = "macos") => "Library/Application Support/Code/User/mcp.json",
            "vscode" => ".config/Code/User/mcp.json",
            "codex" => ".codex/config.toml",
            "windsurf" => ".codeium/windsurf/mcp_config.json",
            "zed" => ".config/zed/settings.json",
            "gemini" => ".gemini/settings.json",
            other => panic!("{other}"),
        }),
    }
}

fn servers_key(client: &str) -> &'static str {
    match client {
        "vscode" => "servers",
        "codex" => "mcp_servers",
        "zed" => "context_servers",
        _ => "mcpServers",
    }
}

/// What a client already had: another server, a setting, a comment.
fn existing(client: &str) -> String {
    if client == "codex" {
        return "# my codex settings\nmodel = \"o3\"\n\n[mcp_servers.other]\ncommand = \"other-server\"\nargs = [\"--stdio\"]\n".into();
    }
    let key = servers_key(client);
    format!("{{\n  // my settings\n  \"theme\": \"dark\",\n  \"{key}\": {{\n    \"other\": {{ \"command\": \"other-server\", \"args\": [\"--stdio\"] }}\n  }}\n}}\n")
}

/// The servers table of a client's file, as JSON.
fn servers_in(client: &str, text: &str) -> Value {
    if client == "codex" {
        let doc: toml_edit::DocumentMut = text.parse().expect("TOML");
        let table = doc["mcp_servers"].as_table().expect("mcp_servers");
        return table
            .iter()
            .map(|(name, item)| {
                let command = item["command"].as_str().unwrap_or_default().to_string();
                let args: Vec<String> = item["args"].as_array().map(|a| a.iter().filter_map(|v| v.as_str().map(String::from)).collect()).unwrap_or_default();
                (name.to_string(), serde_json::json!({"command": command, "args": args}))
            })
            .collect::<serde_json::Map<_, _>>()
            .into();
    }
    // The files' only comments are whole lines (what `existing` wrote).
    let json: String = text.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
    serde_json::from_str::<Value>(&json).unwrap_or_else(|e| panic!("{client}: not JSON ({e}): {text}"))[servers_key(client)].clone()
}

#[test]
fn every_client_gets_the_entry_in_its_own_file_beside_what_was_there_and_a_second_run_changes_nothing() {
    let repo = TestRepo::new();
    repo.write("lib.py", "def greet(name):\n    return f'hello {name}'\n");
    repo.commit("init");
    let home = tempfile::tempdir().unwrap();
    let root = repo.path().canonicalize().unwrap();
    for client in CLIENTS {
        for user in [false, true] {
            let path = file_of(client, repo.path(), home.path(), user);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, existing(client)).unwrap();
            let mut args = vec!["--client", client];
            if user {
                args.push("--user");
            }
            let printed = install(&repo, home.path(), &[&args[..], &["--print"]].concat());
            assert!(printed.status.success(), "{client}: {}", stderr(&printed));
            assert_eq!(std::fs::read_to_string(&path).unwrap(), existing(client), "{client}: --print writes nothing");

            let out = install(&repo, home.path(), &[&args[..], &["--json"]].concat());
            assert!(out.status.success(), "{client} user={user}: {}", stderr(&out));
            let report: Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(report["action"], "added", "{client}: {report}");
            assert_eq!(Path::new(report["path"].as_str().unwrap()), path, "{client} user={user}");
            let text = std::fs::read_to_string(&path).unwrap();
            assert_eq!(text, stdout(&printed), "{client}: --print showed what is written");
            let keeps = if client == "codex" { "# my codex settings" } else { "// my settings" };
            assert!(text.contains(keeps) && (text.contains("dark") || text.contains("\"o3\"")), "{client}: {text}");
            let servers = servers_in(client, &text);
            assert_eq!(servers["other"]["command"], "other-server", "{client}: {text}");
            let entry = &servers["git-rag"];
            assert_eq!(Path::new(entry["command"].as_str().unwrap()), Path::new(env!("CARGO_BIN_EXE_git-rag")).canonicalize().unwrap(), "{client}: {text}");
            assert_eq!(entry["args"], serde_json::json!(["-C", root.to_str().unwrap(), "serve", "--mcp"]), "{client}: {text}");

            let again = install(&repo, home.path(), &args);
            assert!(again.status.success() && stdout(&again).contains("already in"), "{client}: {}", stdout(&again));
            assert_eq!(std::fs::read_to_string(&path).unwrap(), text, "{client}: a second run changes nothing");
        }
    }
}

#[test]
fn the_entry_written_starts_a_server_for_the_repository_from_anywhere() {
    let repo = TestRepo::new();
    repo.write("lib.py", "def greet(name):\n    return f'hello {name}'\n");
    repo.commit("init");
    repo.rag_ok(&["index"]);
    let home = tempfile::tempdir().unwrap();
    let out = install(&repo, home.path(), &["--client", "claude-desktop"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let path = file_of("claude-desktop", repo.path(), home.path(), true);
    let entry = servers_in("claude-desktop", &std::fs::read_to_string(&path).unwrap())["git-rag"].clone();
    let args: Vec<&str> = entry["args"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
    // Claude Desktop starts its servers in `/`.
    let mut mcp = Mcp::spawn(Path::new(entry["command"].as_str().unwrap()), &args, Path::new("/"), &[]);
    assert!(mcp.handshake()["result"]["serverInfo"].is_object());
    let r = mcp.request("tools/call", serde_json::json!({"name": "symbols", "arguments": {"name": "greet"}}));
    assert!(r["result"].to_string().contains("lib.py"), "{r}");
    mcp.finish();
}

#[test]
fn without_a_client_print_gives_the_generic_entry_and_a_file_it_cannot_read_is_left_as_it_was() {
    let repo = TestRepo::new();
    repo.write("a.txt", "a\n");
    repo.commit("init");
    let home = tempfile::tempdir().unwrap();
    let out = install(&repo, home.path(), &["--print", "--portable"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let generic: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(generic, serde_json::json!({"mcpServers": {"git-rag": {"command": "git-rag", "args": ["serve", "--mcp"]}}}));
    let missing = install(&repo, home.path(), &[]);
    assert!(!missing.status.success() && stderr(&missing).contains("--client"), "{}", stderr(&missing));

    let path = repo.path().join(".cursor/mcp.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, "{ \"mcpServers\": { \"other\": ").unwrap();
    let out = install(&repo, home.path(), &["--client", "cursor"]);
    assert!(!out.status.success(), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(err.lines().count() == 1 && err.contains(".cursor/mcp.json is not valid JSON") && err.contains("nothing was changed"), "{err}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "{ \"mcpServers\": { \"other\": ");
}
