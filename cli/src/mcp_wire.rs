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
//!
//! **Batches.** Protocol version 2025-03-26 allows a JSON-RPC batch (an
//! array of messages on one line); the versions before and after it do
//! not. Once the server's `initialize` reply has said 2025-03-26, the
//! filter takes a batch apart: each message is checked as a line of its
//! own and handed to the SDK, errors are answered in place, and the
//! replies to the batch's requests are held until the last one is in,
//! then written as one array (nothing at all for a batch of
//! notifications), as JSON-RPC 2.0 says. `initialize` may not be part of
//! a batch, an id may not be used twice in one, and a batch holds at most
//! [`MAX_BATCH`] messages. Under other versions a batch is an invalid
//! request.
//!
//! Two bounds live here too, for the same reason:
//!
//! - **Requests in flight.** Each request handed to the SDK holds one of
//!   [`Limits::in_flight`] permits until its reply has been written out;
//!   with none left, the filter stops reading. A client that pipelines
//!   20,000 requests without reading replies makes the server wait, not
//!   grow: memory holds at most that many calls and replies.
//! - **Cancels before what follows.** `notifications/cancelled` for a
//!   call in progress is carried out before the next line is read: the
//!   call (see [`Calls`]) drops its work and gives its budget unit back,
//!   then the filter reads on. A call cancelled and followed at once by
//!   another never finds the first one's unit still held.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, oneshot, OwnedSemaphorePermit, Semaphore};

/// The longest line passed on (rmcp's own limit is 16 MiB; this stays
/// under it so that no line reaches rmcp only to be dropped there).
pub const MAX_LINE: usize = 16 * 1024 * 1024 - 1024;

/// The protocol version under which the client may send batches.
pub const BATCH_VERSION: &str = "2025-03-26";

/// The most messages one batch may hold.
pub const MAX_BATCH: usize = 1024;

/// What to do with one line from the client.
#[derive(Debug, PartialEq)]
pub enum Verdict {
    /// Hand it to the SDK.
    Forward(Line),
    /// Answer it here with this JSON-RPC error reply (one line, no newline).
    Reply(String),
    /// Nothing (a blank line).
    Skip,
}

/// What a line handed to the SDK is, for the filter's bounds.
#[derive(Debug, PartialEq)]
pub enum Line {
    /// A request, by the key of its id ([`id_key`]): it holds a permit
    /// until its reply is written out.
    Request(String),
    /// `notifications/cancelled` for the request with this id key.
    Cancel(String),
    /// A reply to the server, or another notification.
    Other,
}

/// The session state the filter keeps: whether `initialize` was seen.
#[derive(Debug, Default)]
pub struct Wire {
    initialized: bool,
    /// The id key of the `initialize` request (its reply says the
    /// protocol version).
    init_id: Option<String>,
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
        self.check_value(&v)
    }

    /// The verdict on one message, parsed.
    fn check_value(&mut self, v: &Value) -> Verdict {
        let null = Value::Null;
        let Value::Object(m) = v else {
            return error(
                &null,
                -32600,
                if v.is_array() {
                    "Invalid Request: a message is one JSON object (batches are allowed only \
                     under protocol version 2025-03-26)"
                } else {
                    "Invalid Request: a message is one JSON object"
                },
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
            return Verdict::Forward(Line::Other);
        };
        let Some(method) = method.as_str() else {
            return error(echo, -32600, "Invalid Request: method must be a string");
        };
        let Some(id) = id else {
            // A notification: never answered, errors included.
            let cancels = m
                .get("params")
                .and_then(|p| p.get("requestId"))
                .filter(|_| method == "notifications/cancelled");
            return Verdict::Forward(match cancels {
                Some(request) => Line::Cancel(id_key(request)),
                None => Line::Other,
            });
        };
        let forward = Verdict::Forward(Line::Request(id_key(id)));
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
                self.init_id = Some(id_key(id));
                forward
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
                forward
            }
            _ => forward,
        }
    }
}

impl Wire {
    /// The verdicts on the messages of a batch (2025-03-26), in order,
    /// each with the line to hand on: every message checked as a line of
    /// its own, `initialize` and an id used twice refused in place.
    pub fn check_batch(&mut self, items: &[Value]) -> Vec<(Verdict, Vec<u8>)> {
        let mut ids = std::collections::HashSet::new();
        items
            .iter()
            .map(|item| {
                let id = item.get("id").filter(|i| i.is_string() || i.is_number());
                let echo = id.cloned().unwrap_or(Value::Null);
                if item.get("method").and_then(Value::as_str) == Some("initialize") {
                    let e = error(
                        &echo,
                        -32600,
                        "Invalid Request: initialize may not be part of a batch",
                    );
                    return (e, Vec::new());
                }
                let verdict = self.check_value(item);
                if let Verdict::Forward(Line::Request(key)) = &verdict {
                    if !ids.insert(key.clone()) {
                        let e = error(
                            &echo,
                            -32600,
                            "Invalid Request: an id may be used only once in a batch",
                        );
                        return (e, Vec::new());
                    }
                }
                let mut line = serde_json::to_vec(item).unwrap_or_default();
                line.push(b'\n');
                (verdict, line)
            })
            .collect()
    }
}

/// The batches whose replies are being gathered, shared by the reader
/// (which opens and seals them) and the writer (which holds their
/// replies); and whether batches are allowed at all.
#[derive(Clone, Default)]
struct Batches(Arc<Mutex<BatchTable>>);

#[derive(Default)]
struct BatchTable {
    /// The id key of `initialize`, whose reply says the version.
    init_id: Option<String>,
    /// The server said 2025-03-26.
    allowed: bool,
    next: u64,
    /// Requests whose reply goes into a batch: id key → batch.
    pending: HashMap<String, u64>,
    open: HashMap<u64, Gathering>,
}

#[derive(Default)]
struct Gathering {
    /// Requests still without a reply.
    waiting: usize,
    /// Every message of the batch has been handed on.
    sealed: bool,
    replies: Vec<String>,
}

/// What the writer does with a reply.
enum Held {
    /// Not part of a batch: write it as it is.
    Alone,
    /// Kept with its batch.
    Kept,
    /// It completed its batch: write this line instead.
    Completes(Vec<u8>),
}

impl BatchTable {
    /// The batch as one line once it is sealed and complete (`None` while
    /// replies are missing, and for a batch with nothing to answer).
    fn finish(&mut self, batch: u64) -> Option<Vec<u8>> {
        let g = self.open.get(&batch)?;
        if !g.sealed || g.waiting > 0 {
            return None;
        }
        let g = self.open.remove(&batch)?;
        if g.replies.is_empty() {
            return None;
        }
        let mut line = format!("[{}]", g.replies.join(",")).into_bytes();
        line.push(b'\n');
        Some(line)
    }
}

impl Batches {
    fn with<T>(&self, f: impl FnOnce(&mut BatchTable) -> T) -> Option<T> {
        self.0.lock().ok().map(|mut t| f(&mut t))
    }

    fn allowed(&self) -> bool {
        self.with(|t| t.allowed).unwrap_or(false)
    }

    fn open(&self) -> u64 {
        self.with(|t| {
            t.next += 1;
            t.open.insert(t.next, Gathering::default());
            t.next
        })
        .unwrap_or(0)
    }

    fn answer(&self, batch: u64, reply: String) {
        self.with(|t| {
            if let Some(g) = t.open.get_mut(&batch) {
                g.replies.push(reply);
            }
        });
    }

    fn expect(&self, batch: u64, id: String) {
        self.with(|t| {
            if let Some(g) = t.open.get_mut(&batch) {
                g.waiting += 1;
                t.pending.insert(id, batch);
            }
        });
    }

    /// A request of a batch was cancelled: no reply will come for it.
    fn cancelled(&self, id: &str) -> Option<Vec<u8>> {
        self.with(|t| {
            let batch = t.pending.remove(id)?;
            if let Some(g) = t.open.get_mut(&batch) {
                g.waiting = g.waiting.saturating_sub(1);
            }
            t.finish(batch)
        })
        .flatten()
    }

    fn seal(&self, batch: u64) -> Option<Vec<u8>> {
        self.with(|t| {
            if let Some(g) = t.open.get_mut(&batch) {
                g.sealed = true;
            }
            t.finish(batch)
        })
        .flatten()
    }

    /// A reply from the SDK, with its id key and its text (no newline).
    fn reply(&self, id: &str, reply: &Value, text: &[u8]) -> Held {
        self.with(|t| {
            if t.init_id.as_deref() == Some(id) {
                t.allowed = reply
                    .get("result")
                    .and_then(|r| r.get("protocolVersion"))
                    .and_then(Value::as_str)
                    == Some(BATCH_VERSION);
            }
            let Some(batch) = t.pending.remove(id) else {
                return Held::Alone;
            };
            let Some(g) = t.open.get_mut(&batch) else {
                return Held::Alone;
            };
            g.waiting = g.waiting.saturating_sub(1);
            g.replies
                .push(String::from_utf8_lossy(text.trim_ascii_end()).into_owned());
            t.finish(batch).map_or(Held::Kept, Held::Completes)
        })
        .unwrap_or(Held::Alone)
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

/// The bounds the filter keeps (see the module header).
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Requests handed to the SDK whose replies are not yet written out.
    pub in_flight: usize,
}

/// How long a cancel waits for its call to let go (the call drops its
/// work at once; this only bounds a call that is stuck elsewhere).
const CANCEL_WAIT: std::time::Duration = std::time::Duration::from_secs(1);

/// The most cancels of calls not (yet) seen that are remembered.
const EARLY_CANCELS: usize = 1024;

/// The calls in progress, by JSON-RPC id, shared by the filter and the
/// server: how a cancel reaches a call before the next line is read.
#[derive(Clone, Default)]
pub struct Calls(Arc<Mutex<CallTable>>);

#[derive(Default)]
struct CallTable {
    /// Where the server writes its own lines (progress), in order with
    /// everything else the client is sent: set by [`start`].
    outbox: Option<mpsc::Sender<Vec<u8>>>,
    /// A running call: where to send the sender it answers on once it
    /// has let go of its work.
    running: HashMap<String, oneshot::Sender<oneshot::Sender<()>>>,
    /// Cancels that came before their call started (in order, bounded).
    early: VecDeque<String>,
}

/// What [`Calls::start`] says of a call.
pub enum Start {
    /// Run it; cancelled when this resolves (answer on the sender it
    /// gives once the work is dropped).
    Run(oneshot::Receiver<oneshot::Sender<()>>),
    /// Its cancel came first: do not start it.
    Cancelled,
}

impl Calls {
    /// The writer's queue, on stdio. Why the server sends progress through
    /// it rather than through the SDK: rmcp writes each notification and
    /// each response in a send task of its own, which promises no order
    /// between them; a progress notification after its call's response
    /// is one a client no longer listens for. Lines put here before the
    /// call returns are written before its response.
    pub fn outbox(&self) -> Option<mpsc::Sender<Vec<u8>>> {
        self.0.lock().ok().and_then(|t| t.outbox.clone())
    }

    /// A call with JSON-RPC id `id` starts.
    pub fn start(&self, id: &str) -> Start {
        let Ok(mut t) = self.0.lock() else {
            return Start::Cancelled;
        };
        if let Some(i) = t.early.iter().position(|e| e == id) {
            t.early.remove(i);
            return Start::Cancelled;
        }
        let (tx, rx) = oneshot::channel();
        t.running.insert(id.to_string(), tx);
        Start::Run(rx)
    }

    /// The call with id `id` ended.
    pub fn end(&self, id: &str) {
        if let Ok(mut t) = self.0.lock() {
            t.running.remove(id);
        }
    }

    /// Cancels the call with id `id`; resolves once it has let go of its
    /// work (at most [`CANCEL_WAIT`]). A call not yet started is
    /// remembered and never starts.
    async fn cancel(&self, id: &str) {
        let running = {
            let Ok(mut t) = self.0.lock() else {
                return;
            };
            let running = t.running.remove(id);
            if running.is_none() {
                if t.early.len() >= EARLY_CANCELS {
                    t.early.pop_front();
                }
                t.early.push_back(id.to_string());
            }
            running
        };
        if let Some(call) = running {
            let (done, let_go) = oneshot::channel();
            if call.send(done).is_ok() {
                let _ = tokio::time::timeout(CANCEL_WAIT, let_go).await;
            }
        }
    }
}

/// The key of a JSON-RPC id (its JSON text: `7` and `"7"` differ).
pub fn id_key(id: &Value) -> String {
    id.to_string()
}

/// A reply (a line with an id and no method): its id key and the reply.
fn parse_reply(line: &[u8]) -> Option<(String, Value)> {
    let v: Value = serde_json::from_slice(line).ok()?;
    if v.get("method").is_some() {
        return None;
    }
    Some((id_key(v.get("id")?), v))
}

/// The permits of the requests in flight, by id (a client may reuse an
/// id: each request holds its own permit).
type Permits = Arc<Mutex<HashMap<String, Vec<OwnedSemaphorePermit>>>>;

/// The SDK's side of the filter: what it reads and where it writes.
pub type SdkSide = (tokio::io::DuplexStream, tokio::io::DuplexStream);

/// The reading side: where checked lines go, and the bounds they take.
struct Reader {
    to_sdk: tokio::io::DuplexStream,
    tx: mpsc::Sender<Vec<u8>>,
    slots: Arc<Semaphore>,
    permits: Permits,
    calls: Calls,
    batches: Batches,
}

impl Reader {
    /// The messages of `line` when it is a batch the session allows.
    fn batch_of(&self, line: &[u8]) -> Option<Vec<Value>> {
        let first = line.iter().find(|b| !b.is_ascii_whitespace())?;
        if *first != b'[' || !self.batches.allowed() {
            return None;
        }
        match serde_json::from_slice(line) {
            Ok(Value::Array(items)) => Some(items),
            _ => None,
        }
    }

    /// Tells the writer which reply says the protocol version.
    fn note_initialize(&self, wire: &mut Wire) {
        if let Some(id) = wire.init_id.take() {
            self.batches.with(|t| t.init_id = Some(id));
        }
    }

    /// Answers in place, or carries out and hands on, one message (of
    /// `batch` if it is part of one).
    async fn hand_on(
        &mut self,
        verdict: Verdict,
        line: Vec<u8>,
        batch: Option<u64>,
    ) -> Result<(), ()> {
        let kind = match verdict {
            Verdict::Skip => return Ok(()),
            Verdict::Reply(reply) => {
                if let Some(b) = batch {
                    self.batches.answer(b, reply);
                    return Ok(());
                }
                let mut reply = reply.into_bytes();
                reply.push(b'\n');
                return self.tx.send(reply).await.map_err(drop);
            }
            Verdict::Forward(kind) => kind,
        };
        match kind {
            Line::Cancel(id) => {
                // Carried out before the next line is read.
                self.calls.cancel(&id).await;
                if let Ok(mut p) = self.permits.lock() {
                    p.remove(&id);
                }
                if let Some(done) = self.batches.cancelled(&id) {
                    self.tx.send(done).await.map_err(drop)?;
                }
            }
            Line::Request(id) => {
                // With every slot taken, stop reading until a reply is
                // written out (or kept with its batch).
                let permit = self.slots.clone().acquire_owned().await.map_err(drop)?;
                if let Ok(mut p) = self.permits.lock() {
                    p.entry(id.clone()).or_default().push(permit);
                }
                if let Some(b) = batch {
                    self.batches.expect(b, id);
                }
            }
            Line::Other => {}
        }
        self.to_sdk.write_all(&line).await.map_err(drop)
    }

    /// A batch, message by message; its replies go out as one line once
    /// the last one is in.
    async fn batch(&mut self, wire: &mut Wire, items: &[Value]) -> Result<(), ()> {
        let whole = if items.is_empty() {
            Some("Invalid Request: a batch holds at least one message")
        } else if items.len() > MAX_BATCH {
            Some("Invalid Request: a batch holds at most 1024 messages")
        } else {
            None
        };
        if let Some(why) = whole {
            return self
                .hand_on(error(&Value::Null, -32600, why), Vec::new(), None)
                .await;
        }
        let b = self.batches.open();
        for (verdict, line) in wire.check_batch(items) {
            self.hand_on(verdict, line, Some(b)).await?;
        }
        match self.batches.seal(b) {
            Some(done) => self.tx.send(done).await.map_err(drop),
            None => Ok(()),
        }
    }
}

/// Starts the filter between `input`/`output` (stdin/stdout) and the SDK.
/// Returns the SDK's transport and a task that ends once everything the
/// SDK wrote has been written out.
pub fn start<R, W>(
    input: R,
    mut output: W,
    limits: Limits,
    calls: Calls,
) -> (SdkSide, tokio::task::JoinHandle<()>)
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (sdk_in, to_sdk) = tokio::io::duplex(1 << 20);
    let (from_sdk, sdk_out) = tokio::io::duplex(1 << 20);
    let (tx, mut rx) = mpsc::channel::<Vec<u8>>(64);
    if let Ok(mut t) = calls.0.lock() {
        t.outbox = Some(tx.clone());
    }
    let slots = Arc::new(Semaphore::new(limits.in_flight.max(1)));
    let permits: Permits = Arc::default();

    // One writer: whole lines only. A reply written out (or kept with
    // its batch) gives its request's permit back.
    let held = permits.clone();
    let batches = Batches::default();
    let gathered = batches.clone();
    let writer = tokio::spawn(async move {
        let give_back = |id: &str| {
            if let Ok(mut p) = held.lock() {
                if let Some(list) = p.get_mut(id) {
                    list.pop();
                    if list.is_empty() {
                        p.remove(id);
                    }
                }
            }
        };
        while let Some(line) = rx.recv().await {
            let (out, after) = match parse_reply(&line) {
                Some((id, v)) => match gathered.reply(&id, &v, &line) {
                    Held::Alone => (line, Some(id)),
                    Held::Kept => {
                        give_back(&id);
                        continue;
                    }
                    Held::Completes(batch) => {
                        give_back(&id);
                        (batch, None)
                    }
                },
                None => (line, None),
            };
            if output.write_all(&out).await.is_err() || output.flush().await.is_err() {
                break;
            }
            if let Some(id) = after {
                give_back(&id);
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
    let mut reader = Reader {
        to_sdk,
        tx,
        slots,
        permits,
        calls,
        batches,
    };
    tokio::spawn(async move {
        let mut r = BufReader::new(input);
        let mut wire = Wire::default();
        let mut line = Vec::new();
        loop {
            let handed = match next_line(&mut r, &mut line).await {
                Ok(None) | Err(_) => break,
                Ok(Some(Err(()))) => {
                    let too_long = error(
                        &Value::Null,
                        -32600,
                        "Invalid Request: the line is longer than the 16 MiB a message may take",
                    );
                    reader.hand_on(too_long, Vec::new(), None).await
                }
                Ok(Some(Ok(()))) => match reader.batch_of(&line) {
                    Some(items) => reader.batch(&mut wire, &items).await,
                    None => {
                        let verdict = wire.check(&line);
                        reader.note_initialize(&mut wire);
                        line.push(b'\n');
                        reader
                            .hand_on(verdict, std::mem::take(&mut line), None)
                            .await
                    }
                },
            };
            if handed.is_err() {
                break;
            }
        }
        // End of input: the SDK sees it and ends the session.
        let _ = reader.to_sdk.shutdown().await;
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
        assert_eq!(w.check(init), Verdict::Forward(Line::Request("1".into())));
        assert_eq!(
            w.check(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            Verdict::Forward(Line::Other)
        );
        assert_eq!(
            w.check(br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"x"}}"#),
            Verdict::Forward(Line::Cancel("\"x\"".into()))
        );
        assert_eq!(
            w.check(
                br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"web_fetch"}}"#
            ),
            Verdict::Forward(Line::Request("3".into()))
        );
        assert_eq!(
            w.check(br#"{"jsonrpc":"2.0","id":9,"result":{}}"#),
            Verdict::Forward(Line::Other)
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

    #[test]
    fn a_batch_is_written_once_its_last_reply_is_in_or_cancelled() {
        let b = Batches::default();
        let n = b.open();
        b.expect(n, "1".into());
        b.expect(n, "2".into());
        b.answer(n, r#"{"id":null}"#.into());
        assert!(b.seal(n).is_none());
        let r = json!({"jsonrpc": "2.0", "id": 1, "result": {}});
        assert!(matches!(
            b.reply("1", &r, r.to_string().as_bytes()),
            Held::Kept
        ));
        let line = b
            .cancelled("2")
            .expect("complete once the cancelled one is let go");
        let v: Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(v.as_array().unwrap().len(), 2);
        assert!(matches!(b.reply("3", &r, b"{}"), Held::Alone));
        // A batch of notifications has nothing to write.
        let n = b.open();
        assert!(b.seal(n).is_none());
    }
}
