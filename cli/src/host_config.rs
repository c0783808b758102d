//! `webgate mcp --print-config HOST`: the configuration a host's MCP
//! client needs to start this server, printed instead of serving.
//!
//! Each host keeps its servers in its own shape: Claude Desktop and Cursor
//! an `mcpServers` object in a JSON file, VS Code a `servers` object whose
//! entries say `"type": "stdio"` (and may prompt for a secret through
//! `inputs`), Claude Code a `claude mcp add` command line. What is printed
//! starts the server exactly as the printing command would have: the
//! binary by its absolute path (a desktop host does not see the shell's
//! `PATH`, where `cargo install` puts it), the other `mcp` options as
//! given, and the `WEBGATE_*` variables set now as the server's
//! environment. The search key is a secret: VS Code prompts for it (a
//! password input) instead of storing it; the other shapes carry it as
//! set, and stderr says where it went.
//!
//! Pure: the caller supplies the binary, the options and the variables.

use serde_json::{json, Map, Value};

/// The hosts whose configuration shape is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Host {
    /// `claude_desktop_config.json` (`mcpServers`).
    ClaudeDesktop,
    /// `claude mcp add … -- COMMAND ARGS` (user scope).
    ClaudeCode,
    /// `.vscode/mcp.json` or the user profile's `mcp.json` (`servers`).
    Vscode,
    /// `~/.cursor/mcp.json` or a project's `.cursor/mcp.json`
    /// (`mcpServers`).
    Cursor,
}

/// The name the server is registered under.
pub(crate) const NAME: &str = "webgate";

/// The variable that holds the search provider's key (a secret).
const KEY_VARIABLE: &str = "WEBGATE_SEARCH_KEY";

/// The VS Code input that prompts for the key.
const KEY_INPUT: &str = "webgate-search-key";

/// What the server is started with.
pub(crate) struct Launch<'a> {
    /// The binary (an absolute path).
    pub exe: &'a str,
    /// The arguments after the binary (`mcp` and its options).
    pub args: &'a [String],
    /// The environment the server needs, by name (sorted).
    pub env: &'a [(String, String)],
}

/// The configuration for `host` (what goes on stdout) and where it goes
/// (for stderr).
pub(crate) fn render(host: Host, launch: &Launch<'_>) -> (String, &'static str) {
    match host {
        Host::ClaudeDesktop => (
            servers_file("mcpServers", json_entry(launch, false)),
            "the \"mcpServers\" of claude_desktop_config.json (Claude > Settings > Developer > \
             Edit Config), then restart Claude Desktop",
        ),
        Host::Cursor => (
            servers_file("mcpServers", json_entry(launch, false)),
            "the \"mcpServers\" of ~/.cursor/mcp.json (every project) or .cursor/mcp.json (one \
             project)",
        ),
        Host::Vscode => {
            let mut file = Map::new();
            if launch.env.iter().any(|(k, _)| k == KEY_VARIABLE) {
                file.insert(
                    "inputs".into(),
                    json!([{
                        "type": "promptString",
                        "id": KEY_INPUT,
                        "description": "The search provider's API key",
                        "password": true,
                    }]),
                );
            }
            file.insert("servers".into(), json!({ NAME: json_entry(launch, true) }));
            (
                pretty(&Value::Object(file)),
                ".vscode/mcp.json (this workspace) or the user profile's mcp.json (MCP: Open User \
                 Configuration)",
            )
        }
        Host::ClaudeCode => (
            claude_code_command(launch),
            "a shell, once (it registers the server for every project: --scope user)",
        ),
    }
}

fn servers_file(key: &str, entry: Value) -> String {
    pretty(&json!({ key: { NAME: entry } }))
}

fn pretty(v: &Value) -> String {
    // OK because a Value built from strings always serializes.
    serde_json::to_string_pretty(v).unwrap_or_default()
}

/// One server entry: command, args and env (VS Code's also says its type,
/// and takes the key from a prompt).
fn json_entry(launch: &Launch<'_>, vscode: bool) -> Value {
    let mut entry = Map::new();
    if vscode {
        entry.insert("type".into(), json!("stdio"));
    }
    entry.insert("command".into(), json!(launch.exe));
    entry.insert("args".into(), json!(launch.args));
    if !launch.env.is_empty() {
        let env: Map<String, Value> = launch
            .env
            .iter()
            .map(|(k, v)| {
                let v = if vscode && k == KEY_VARIABLE {
                    format!("${{input:{KEY_INPUT}}}")
                } else {
                    v.clone()
                };
                (k.clone(), Value::String(v))
            })
            .collect();
        entry.insert("env".into(), Value::Object(env));
    }
    Value::Object(entry)
}

fn claude_code_command(launch: &Launch<'_>) -> String {
    let mut words = vec![
        "claude".to_string(),
        "mcp".into(),
        "add".into(),
        "--scope".into(),
        "user".into(),
        "--transport".into(),
        "stdio".into(),
    ];
    for (k, v) in launch.env {
        words.push("--env".into());
        words.push(format!("{k}={v}"));
    }
    words.push(NAME.into());
    words.push("--".into());
    words.push(launch.exe.into());
    words.extend(launch.args.iter().cloned());
    words
        .iter()
        .map(|w| shell_quote(w))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A word as a POSIX shell reads it back: bare when it holds only
/// characters no shell treats specially, else in single quotes (a single
/// quote inside written as `'\''`).
fn shell_quote(w: &str) -> String {
    let plain = !w.is_empty()
        && w.bytes().all(|b| {
            b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'/' | b'=' | b':' | b',')
        });
    if plain {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', "'\\''"))
    }
}

/// The `mcp` arguments of this invocation without `--print-config` and
/// its value: what the configured server is started with.
pub(crate) fn serving_args(after_mcp: &[String]) -> Vec<String> {
    let mut out = vec!["mcp".to_string()];
    let mut skip = false;
    for a in after_mcp {
        if skip {
            skip = false;
        } else if a == "--print-config" {
            skip = true;
        } else if !a.starts_with("--print-config=") {
            out.push(a.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn launch_with(env: &[(String, String)]) -> (String, String, String, String) {
        let args = serving_args(&[
            "--print-config".into(),
            "vscode".into(),
            "--links".into(),
            "none".into(),
        ]);
        let l = Launch {
            exe: "/opt/web gate/webgate",
            args: &args,
            env,
        };
        (
            render(Host::ClaudeDesktop, &l).0,
            render(Host::Cursor, &l).0,
            render(Host::Vscode, &l).0,
            render(Host::ClaudeCode, &l).0,
        )
    }

    #[test]
    fn each_shape_starts_the_same_server() {
        let env = vec![
            ("WEBGATE_SEARCH_KEY".to_string(), "k'ey".to_string()),
            ("WEBGATE_SEARCH_PROVIDER".to_string(), "brave".to_string()),
        ];
        let (desktop, cursor, vscode, code) = launch_with(&env);
        let d: Value = serde_json::from_str(&desktop).unwrap();
        let e = &d["mcpServers"]["webgate"];
        assert_eq!(e["command"], "/opt/web gate/webgate");
        assert_eq!(e["args"], json!(["mcp", "--links", "none"]));
        assert_eq!(e["env"]["WEBGATE_SEARCH_KEY"], "k'ey");
        assert_eq!(desktop, cursor);
        let v: Value = serde_json::from_str(&vscode).unwrap();
        assert_eq!(v["servers"]["webgate"]["type"], "stdio");
        assert_eq!(
            v["servers"]["webgate"]["env"]["WEBGATE_SEARCH_KEY"],
            "${input:webgate-search-key}"
        );
        assert_eq!(v["inputs"][0]["password"], true);
        assert_eq!(
            code,
            "claude mcp add --scope user --transport stdio --env 'WEBGATE_SEARCH_KEY=k'\\''ey' \
             --env WEBGATE_SEARCH_PROVIDER=brave webgate -- '/opt/web gate/webgate' mcp --links \
             none"
        );
    }

    #[test]
    fn no_environment_no_env_and_no_inputs() {
        let (desktop, _, vscode, _) = launch_with(&[]);
        let d: Value = serde_json::from_str(&desktop).unwrap();
        assert!(d["mcpServers"]["webgate"].get("env").is_none());
        let v: Value = serde_json::from_str(&vscode).unwrap();
        assert!(v.get("inputs").is_none());
    }

    #[test]
    fn the_option_is_dropped_in_both_spellings() {
        assert_eq!(
            serving_args(&["--print-config=cursor".into(), "--audit".into()]),
            ["mcp", "--audit"]
        );
    }
}
