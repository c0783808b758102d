//! The host set-up README.md shows, and `webgate mcp --print-config HOST`,
//! each started as its host would start it: the snippet is parsed in the
//! host's own shape (`mcpServers`, VS Code's `servers` with its `inputs`,
//! Claude Code's `claude mcp add … -- COMMAND ARGS`), the server is spawned
//! from its command, arguments and environment, and answers `initialize`
//! and `tools/list` over stdio. `webgate` from the snippets is this build's
//! binary (README's snippets assume it is on `PATH`).

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::Value;

const HOSTS: [&str; 4] = ["claude-desktop", "claude-code", "vscode", "cursor"];

/// A server as a host starts it.
#[derive(Debug)]
struct Launch {
    command: String,
    args: Vec<String>,
    env: BTreeMap<String, String>,
}

/// The fenced blocks of README.md tagged `host=NAME`, by name.
fn readme_snippets() -> BTreeMap<String, String> {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md"))
        .expect("README.md");
    let mut out = BTreeMap::new();
    let mut current: Option<(String, String)> = None;
    for line in readme.lines() {
        match &mut current {
            Some((name, body)) => {
                if line.trim_start().starts_with("```") {
                    out.insert(name.clone(), std::mem::take(body));
                    current = None;
                } else {
                    body.push_str(line);
                    body.push('\n');
                }
            }
            None => {
                if let Some(info) = line.trim_start().strip_prefix("```") {
                    if let Some(host) = info
                        .split_whitespace()
                        .find_map(|w| w.strip_prefix("host="))
                    {
                        current = Some((host.to_string(), String::new()));
                    }
                }
            }
        }
    }
    out
}

/// One server entry of a JSON configuration (`mcpServers` or `servers`),
/// VS Code's `${input:…}` answered as the host's prompt would be.
fn from_json(host: &str, text: &str) -> Launch {
    let v: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{host}: {e}\n{text}"));
    let servers = if host == "vscode" {
        &v["servers"]
    } else {
        &v["mcpServers"]
    };
    let entry = &servers["webgate"];
    if host == "vscode" {
        assert_eq!(entry["type"], "stdio", "{host}");
    }
    let inputs: Vec<String> = v["inputs"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|i| format!("${{input:{}}}", i["id"].as_str().unwrap()))
                .collect()
        })
        .unwrap_or_default();
    let env = entry["env"]
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| {
                    let v = v.as_str().unwrap().to_string();
                    let v = if inputs.contains(&v) {
                        "prompted-key".to_string()
                    } else {
                        v
                    };
                    (k.clone(), v)
                })
                .collect()
        })
        .unwrap_or_default();
    Launch {
        command: entry["command"].as_str().expect("command").to_string(),
        args: entry["args"]
            .as_array()
            .expect("args")
            .iter()
            .map(|a| a.as_str().unwrap().to_string())
            .collect(),
        env,
    }
}

/// Words as a POSIX shell splits them: blanks separate, single quotes
/// quote, `\` escapes one character outside quotes, `\`+newline joins.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    w.push(q);
                }
            }
            '\\' => match chars.next() {
                Some('\n') | None => {}
                Some(e) => word.get_or_insert_with(String::new).push(e),
            },
            c if c.is_whitespace() => words.extend(word.take()),
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    words
}

/// `claude mcp add [options] NAME -- COMMAND ARGS…`.
fn from_claude_code(text: &str) -> Launch {
    let words = shell_words(text.trim());
    assert_eq!(&words[..3], ["claude", "mcp", "add"], "{text}");
    let mut env = BTreeMap::new();
    let mut i = 3;
    let mut name = None;
    while words[i] != "--" {
        match words[i].as_str() {
            "--scope" | "-s" | "--transport" | "-t" => i += 1,
            "--env" | "-e" => {
                i += 1;
                let (k, v) = words[i].split_once('=').expect("--env KEY=VALUE");
                env.insert(k.to_string(), v.to_string());
            }
            w if w.starts_with('-') => panic!("an option this test does not know: {w}"),
            w => name = Some(w.to_string()),
        }
        i += 1;
    }
    assert_eq!(name.as_deref(), Some("webgate"), "{text}");
    Launch {
        command: words[i + 1].clone(),
        args: words[i + 2..].to_vec(),
        env,
    }
}

fn launch_of(host: &str, text: &str) -> Launch {
    if host == "claude-code" {
        from_claude_code(text)
    } else {
        from_json(host, text)
    }
}

/// Starts the server as `launch` says (only its environment's WEBGATE_
/// variables, as a host sets them) and returns the tools it lists.
fn start(launch: &Launch) -> Vec<String> {
    let command = if launch.command == "webgate" {
        env!("CARGO_BIN_EXE_webgate").to_string()
    } else {
        launch.command.clone()
    };
    let mut cmd = Command::new(command);
    cmd.args(&launch.args);
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("WEBGATE_") {
            cmd.env_remove(k);
        }
    }
    cmd.envs(&launch.env);
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{launch:?}: {e}"));
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(
            br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"host","version":"0"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
"#,
        )
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let v: Value = serde_json::from_str(&line).unwrap();
            if v["id"] == 2 {
                let _ = tx.send(v);
                return;
            }
        }
    });
    let listed = rx
        .recv_timeout(Duration::from_secs(60))
        .unwrap_or_else(|_| panic!("{launch:?}: no tools/list reply"));
    drop(stdin);
    let _ = child.wait();
    listed["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn every_readme_snippet_starts_the_server() {
    let snippets = readme_snippets();
    for host in HOSTS {
        let text = snippets
            .get(host)
            .unwrap_or_else(|| panic!("README.md has no snippet tagged host={host}"));
        let launch = launch_of(host, text);
        assert_eq!(launch.command, "webgate", "{host}");
        assert_eq!(
            launch.args.first().map(String::as_str),
            Some("mcp"),
            "{host}"
        );
        let tools = start(&launch);
        assert!(
            tools.contains(&"web_fetch".to_string()),
            "{host}: {tools:?}"
        );
        assert_eq!(
            tools.contains(&"web_search".to_string()),
            launch.env.contains_key("WEBGATE_SEARCH_PROVIDER"),
            "{host}: {tools:?}"
        );
    }
}

#[test]
fn print_config_starts_this_server_with_the_options_given() {
    let exe = std::fs::canonicalize(env!("CARGO_BIN_EXE_webgate")).unwrap();
    for host in HOSTS {
        let mut cmd = Command::new(&exe);
        for (k, _) in std::env::vars_os() {
            if k.to_string_lossy().starts_with("WEBGATE_") {
                cmd.env_remove(k);
            }
        }
        let out = cmd
            .args(["mcp", "--print-config", host, "--links", "none"])
            .env("WEBGATE_SEARCH_PROVIDER", "brave")
            .env("WEBGATE_SEARCH_KEY", "a key with 'quotes'")
            .output()
            .unwrap();
        assert!(out.status.success(), "{host}: {out:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(stderr.contains("this goes into"), "{host}: {stderr}");
        let launch = launch_of(host, &text);
        assert_eq!(launch.command, exe.to_str().unwrap(), "{host}");
        assert_eq!(launch.args, ["mcp", "--links", "none"], "{host}");
        let key = if host == "vscode" {
            "prompted-key"
        } else {
            "a key with 'quotes'"
        };
        assert_eq!(launch.env["WEBGATE_SEARCH_KEY"], key, "{host}");
        let tools = start(&launch);
        assert_eq!(tools, ["web_fetch", "web_search"], "{host}");
    }
}

#[test]
fn an_unknown_host_is_a_usage_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_webgate"))
        .args(["mcp", "--print-config", "notepad"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(64));
    assert!(String::from_utf8_lossy(&out.stderr).contains("claude-desktop"));
}
