//! The JSON-RPC line discipline in front of the MCP SDK on stdio.
//!
//! rmcp drops what it cannot decode: a malformed line gets no reply (the
//! client waits for its own time-out), a line over its 16 MiB limit is
//! dropped silently, `tools/call` without a `name` is answered "method not
//! found", and a second `initialize` is accepted. JSON-RPC 2.0 and MCP
//! want an error reply for each. This filter reads stdin line by line,
//! answers those cases itself with the specification's codes (-32700 parse
//! error and -32600 invalid request with `"id": null` when the id cannot
//! be known; -32602 invalid params), and hands every other line to rmcp
//! unchanged. Replies from both go out through one writer, a whole line at
//! a time, so they never interleave.
//!
//! Why a filter and not a patch: the SDK is bounded from outside; what it
//! receives is always a well-formed request it handles as it should.

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// The longest line passed on (rmcp's own limit is 16 MiB; this stays
/// under it so that no line reaches rmcp only to be dropped there).
pub const MAX_LINE: usize = 16 * 1024 * 1024 - 1024;

/// What to do with one line from the client.
#[derive(Debug, PartialEq)]
pub enum Verdict {
    /// Hand it to the SDK.
    Forward,
    /// Answer it here with this JSON-RPC error reply (one line, no newline).
    Reply(String),
    /// Nothing (a blank line).
    Skip,
}

/// The session state the filter keeps: whether `initialize` was seen.
#[derive(Debug, Default)]
pub struct Wire {
    initialized: bool,
}

fn error(id: &Value, code: i64, message: &str) -> Verdict {
    Verdict::Reply(
        json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
            .to_string(),
    )
}

impl Wire {
    /// The verdict on one line (without its newline).
    pub fn check(&mut self, line: &[u8]) -> Verdict {
        if line.iter().all(u8::is_ascii_whitespace) {
            return Verdict::Skip;
        }
        let null = Value::Null;
        let Ok(v) = serde_json::from_slice::<Value>(line) else {
            return error(&null, -32700, "Parse error: the line is not JSON");
        };
        let Value::Object(m) = &v else {
            return error(
                &null,
                -32600,
                "Invalid Request: a message is one JSON object (batches are not supported)",
            );
        };
        // An id that is not a string or a number cannot be echoed.
        let id = match m.get("id") {
            Some(id @ (Value::String(_) | Value::Number(_))) => Some(id),
            None => None,
            Some(_) => {
                return error(
                    &null,
                    -32600,
                    "Invalid Request: id must be a string or a number",
                )
            }
        };
        let echo = id.unwrap_or(&null);
        if m.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return error(echo, -32600, "Invalid Request: jsonrpc must be \"2.0\"");
        }
        let Some(method) = m.get("method") else {
            // A response to one of the server's own requests.
            return Verdict::Forward;
        };
        let Some(method) = method.as_str() else {
            return error(echo, -32600, "Invalid Request: method must be a string");
        };
        if id.is_none() {
            // A notification: never answered, errors included.
            return Verdict::Forward;
        }
        match method {
            "initialize" => {
                if self.initialized {
                    return error(
                        echo,
                        -32600,
                        "Invalid Request: the session is already initialized",
                    );
                }
                self.initialized = true;
                Verdict::Forward
            }
            "tools/call" => {
                let params = m.get("params");
                let name_ok = params
                    .and_then(|p| p.get("name"))
                    .is_some_and(Value::is_string);
                let args_ok = params
                    .and_then(|p| p.get("arguments"))
                    .is_none_or(|a| a.is_object() || a.is_null());
                if !name_ok {
                    return error(
                        echo,
                        -32602,
                        "Invalid params: tools/call needs a name (a string)",
                    );
                }
                if !args_ok {
                    return error(echo, -32602, "Invalid params: arguments must be an object");
                }
                Verdict::Forward
            }
            _ => Verdict::Forward,
        }
    }
}

/// Reads lines from `input` for at most [`MAX_LINE`] bytes each: `Ok(None)`
/// at the end, `Ok(Some(Err(())))` for a line that was longer (read to its
/// end and dropped).
async fn next_line<R: AsyncRead + Unpin>(
    input: &mut BufReader<R>,
    line: &mut Vec<u8>,
) -> std::io::Result<Option<Result<(), ()>>> {
    line.clear();
    let mut too_long = false;
    loop {
        let buf = input.fill_buf().await?;
        if buf.is_empty() {
            return Ok(if line.is_empty() && !too_long {
                None
            } else if too_long {
                Some(Err(()))
            } else {
                Some(Ok(()))
            });
        }
        let (chunk, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], Some(i + 1)),
            None => (buf, None),
        };
        if !too_long {
            if line.len() + chunk.len() > MAX_LINE {
                too_long = true;
                line.clear();
            } else {
                line.extend_from_slice(chunk);
            }
        }
        let used = done.unwrap_or(buf.len());
        input.consume(used);
        if done.is_some() {
            return Ok(Some(if too_long { Err(()) } else { Ok(()) }));
        }
    }
}

/// The SDK's side of the filter: what it reads and where it writes.
pub type SdkSide = (tokio::io::DuplexStream, tokio::io::DuplexStream);

/// Starts the filter between `input`/`output` (stdin/stdout) and the SDK.
/// Returns the SDK's transport and a task that ends once everything the
/// SDK wrote has been written out.
pub fn start<R, W>(input: R, mut output: W) -> (SdkSide, tokio::task::JoinHandle<()>)
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (sdk_in, mut to_sdk) = tokio::io::duplex(1 << 20);
    let (from_sdk, sdk_out) = tokio::io::duplex(1 << 20);
    let (tx, mut rx) = mpsc::channel::<Vec<u8>>(64);

    // One writer: whole lines only.
    let writer = tokio::spawn(async move {
        while let Some(line) = rx.recv().await {
            if output.write_all(&line).await.is_err() || output.flush().await.is_err() {
                break;
            }
        }
    });

    // The SDK's output, line by line, into the writer.
    let sdk_tx = tx.clone();
    let pump_out = tokio::spawn(async move {
        let mut r = BufReader::new(from_sdk);
        let mut line = Vec::new();
        loop {
            line.clear();
            match r.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if sdk_tx.send(std::mem::take(&mut line)).await.is_err() {
                        break;
                    }
                }
            }
        }
    });

    // The client's input, checked line by line.
    tokio::spawn(async move {
        let mut r = BufReader::new(input);
        let mut wire = Wire::default();
        let mut line = Vec::new();
        loop {
            let verdict = match next_line(&mut r, &mut line).await {
                Ok(None) | Err(_) => break,
                Ok(Some(Err(()))) => error(
                    &Value::Null,
                    -32600,
                    "Invalid Request: the line is longer than the 16 MiB a message may take",
                ),
                Ok(Some(Ok(()))) => wire.check(&line),
            };
            match verdict {
                Verdict::Skip => {}
                Verdict::Reply(mut reply) => {
                    reply.push('\n');
                    if tx.send(reply.into_bytes()).await.is_err() {
                        break;
                    }
                }
                Verdict::Forward => {
                    line.push(b'\n');
                    if to_sdk.write_all(&line).await.is_err() {
                        break;
                    }
                }
            }
        }
        // End of input: the SDK sees it and ends the session.
        let _ = to_sdk.shutdown().await;
    });

    let done = tokio::spawn(async move {
        let _ = pump_out.await;
        let _ = writer.await;
    });
    ((sdk_in, sdk_out), done)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(v: Verdict) -> Value {
        match v {
            Verdict::Reply(s) => serde_json::from_str(&s).unwrap(),
            other => panic!("expected a reply, got {other:?}"),
        }
    }

    #[test]
    fn the_specification_s_errors() {
        let mut w = Wire::default();
        let r = reply(w.check(b"not json"));
        assert_eq!(r["error"]["code"], -32700);
        assert!(r.as_object().unwrap().contains_key("id") && r["id"].is_null());
        let r = reply(w.check(b"[1,2]"));
        assert_eq!(
            (r["error"]["code"].clone(), r["id"].clone()),
            (json!(-32600), Value::Null)
        );
        let r = reply(w.check(br#"{"jsonrpc":"1.0","id":7,"method":"ping"}"#));
        assert_eq!(
            (r["error"]["code"].clone(), r["id"].clone()),
            (json!(-32600), json!(7))
        );
        let r = reply(w.check(br#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#));
        assert_eq!(r["id"], Value::Null);
        let r = reply(w.check(br#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{}}"#));
        assert_eq!(
            (r["error"]["code"].clone(), r["id"].clone()),
            (json!(-32602), json!("a"))
        );
        let r = reply(w.check(
            br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"web_fetch","arguments":[1]}}"#,
        ));
        assert_eq!(r["error"]["code"], -32602);
        assert_eq!(w.check(b"   "), Verdict::Skip);
    }

    #[test]
    fn good_messages_pass_and_initialize_passes_once() {
        let mut w = Wire::default();
        let init = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#;
        assert_eq!(w.check(init), Verdict::Forward);
        assert_eq!(
            w.check(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            Verdict::Forward
        );
        assert_eq!(
            w.check(
                br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"web_fetch"}}"#
            ),
            Verdict::Forward
        );
        assert_eq!(
            w.check(br#"{"jsonrpc":"2.0","id":9,"result":{}}"#),
            Verdict::Forward
        );
        let r = reply(w.check(init));
        assert_eq!(
            (r["error"]["code"].clone(), r["id"].clone()),
            (json!(-32600), json!(1))
        );
    }

    #[tokio::test]
    async fn an_oversized_line_is_answered_and_the_next_one_read() {
        let mut input = vec![b'x'; MAX_LINE + 10];
        input.extend_from_slice(b"\n{\"a\":1}\n");
        let mut r = BufReader::new(&input[..]);
        let mut line = Vec::new();
        assert_eq!(next_line(&mut r, &mut line).await.unwrap(), Some(Err(())));
        assert_eq!(next_line(&mut r, &mut line).await.unwrap(), Some(Ok(())));
        assert_eq!(line, b"{\"a\":1}");
        assert_eq!(next_line(&mut r, &mut line).await.unwrap(), None);
    }
}
