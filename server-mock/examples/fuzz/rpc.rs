//! `rpc`: JSON-RPC request bodies through lightprov-node's HTTP front parser
//! ([`front::triage`]: UTF-8, JSON, each request's envelope, batch length), then, for what the
//! front forwards, through `rpc::module` in-process (`RpcModule::raw_json_request`, no socket)
//! on a dev chain with every engine — every body takes the path it takes in the node, with
//! `--max-batch` [`MAX_BATCH`].
//!
//! Never a panic or a hang, and:
//!
//! - a body the front refuses gets a well-formed JSON-RPC error object: valid JSON, `jsonrpc`
//!   `"2.0"`, an `id` that is null or the request's, an integer `error.code`, a non-empty
//!   `error.message` of at most [`MAX_MESSAGE`] characters, no `result`, and an HTTP status of
//!   200 or 4xx;
//! - a single call the front forwards is the body without its leading whitespace, flagged
//!   expensive exactly when its method is; jsonrpsee can read it (the front promised its
//!   envelope is fine: no bare -32700 / -32600) and answers one result or error object with
//!   the request's id;
//! - a notification (no `id`) gets no answer;
//! - a batch: the calls forwarded are entries of the body, in order; each is sent to
//!   `raw_json_request` as jsonrpsee's batch would, the answers are joined into jsonrpsee's
//!   array and merged with the refused entries' answers ([`front::merge_batch`]) as the node
//!   does; the result is a JSON array of well-formed answers, one per entry that is not a
//!   notification (at least one per entry that is not an object or has an `id`).
//!
//! Refusals by the front count as undecoded (-32700, not JSON) or decoded (envelope errors);
//! handler errors as in the node: -32602 decoded, others the final check; results accepted.
//!
//! `evm_mine` is served for the first [`MINE_CAP`] calls of a run and skipped after that, so a
//! long run does not grow the chain without bound.

// A fuzz harness fails loudly by design, and reads inputs it has just bounded.
#![allow(clippy::indexing_slicing)]

use std::{
    collections::{BTreeMap, HashSet},
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
};

use alloy_primitives::Address;
use jsonrpsee::RpcModule;
use lightprov_node::{
    front::{self, Triage},
    rpc::{Node, is_expensive, module},
};
use lightprov_types::hex;
use serde_json::{Value, json, value::RawValue};

use lightprov_fuzz::{Corpus, Depth, Finding, Outcome, Regression, Target, rng::Rng, strip_digits};

use crate::devchain;

/// Blocks a run may mine through `evm_mine`.
pub(crate) const MINE_CAP: u64 = 64;

/// The node's `--max-batch` in this target: larger batches are refused by the front, as the
/// node does (this keeps each input's calls few).
pub(crate) const MAX_BATCH: u32 = 16;

/// The longest error message the front may answer, in characters: it quotes the input only
/// in part.
pub(crate) const MAX_MESSAGE: usize = 300;

/// JSON's whitespace (RFC 8259): what the front cuts before forwarding a call.
const JSON_WHITESPACE: [u8; 4] = [b' ', b'\t', b'\n', b'\r'];

/// The `rpc` target.
pub(crate) struct Rpc {
    _dir: tempfile::TempDir,
    module: RpcModule<Arc<Node>>,
    runtime: tokio::runtime::Runtime,
    corpus: Corpus,
    methods: Vec<String>,
    /// The methods served, as the front knows them.
    names: HashSet<&'static str>,
    interesting: Vec<Value>,
    mined: AtomicU64,
}

impl std::fmt::Debug for Rpc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rpc").finish_non_exhaustive()
    }
}

fn req(method: &str, params: Value) -> String {
    json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params }).to_string()
}

/// What one call forwarded to jsonrpsee gave.
enum Call {
    /// Answered: the verdict and the answer's text.
    Answered(Outcome, String),
    /// An `evm_mine` past [`MINE_CAP`]: not run.
    Skipped,
}

/// Checks that `answer` is one well-formed JSON-RPC error object the front may send, and
/// returns its code, message and id.
fn front_error(answer: &str) -> Result<(i64, String, Value), String> {
    let v: Value = serde_json::from_str(answer).map_err(|e| format!("not JSON ({e})"))?;
    if v.get("jsonrpc") != Some(&json!("2.0")) {
        return Err("no \"jsonrpc\": \"2.0\"".into());
    }
    let id = v.get("id").ok_or("no id")?;
    if !(id.is_null() || id.is_string() || id.is_u64()) {
        return Err("an id that is not null, a string or a non-negative integer".into());
    }
    if v.get("result").is_some() {
        return Err("a result in an error answer".into());
    }
    let e = v.get("error").ok_or("no error object")?;
    let code = e
        .get("code")
        .and_then(Value::as_i64)
        .ok_or("error without an integer code")?;
    let msg = e
        .get("message")
        .and_then(Value::as_str)
        .ok_or("error without a message")?;
    if msg.trim().is_empty() {
        return Err("an empty message".into());
    }
    let chars = msg.chars().count();
    if chars > MAX_MESSAGE {
        return Err(format!(
            "a message of {chars} characters (at most {MAX_MESSAGE})"
        ));
    }
    Ok((code, msg.to_owned(), id.clone()))
}

/// The verdict class of an error: code and message, quoted parts and numbers removed.
fn error_class(code: i64, msg: &str, chars: usize) -> String {
    let short: String = strip_digits(&unquote(msg)).chars().take(chars).collect();
    format!("{code}:{short}")
}

/// The verdict class of a refusal by the front: its error code and message, with the parts
/// that quote the input (a method name, a member name, a value) left out.
fn front_class(code: i64, msg: &str) -> String {
    const KINDS: [&str; 6] = [
        "an object",
        "an array",
        "a string",
        "a boolean",
        "null",
        "a number",
    ];
    let msg = if code == -32601 {
        "method not found".to_owned()
    } else if msg.ends_with(" appears twice") {
        "invalid request: … appears twice".to_owned()
    } else if let Some((head, got)) = msg.split_once(", got ") {
        let kind = KINDS.iter().find(|k| got.starts_with(**k)).unwrap_or(&"…");
        format!("{head}, got {kind}")
    } else {
        msg.to_owned()
    };
    format!("front:{}", error_class(code, &msg, 80))
}

/// The members of a request object, their values raw (`Value` cannot hold every JSON text the
/// front takes: a lone surrogate escape, say); `None` if `text` is not an object or a key is
/// unreadable. A member given twice counts once.
fn members(text: &str) -> Option<BTreeMap<String, &RawValue>> {
    serde_json::from_str(text).ok()
}

/// A member of a request object, as a value; `None` if there is none or it cannot be read.
fn member(text: &str, name: &str) -> Option<Value> {
    serde_json::from_str(members(text)?.get(name)?.get()).ok()
}

/// Whether `data` is one JSON text (RFC 8259: UTF-8, whitespace around it allowed).
fn is_json(data: &[u8]) -> bool {
    serde_json::from_slice::<&RawValue>(data).is_ok()
}

/// Whether a request must get an answer: anything but an object without `id` (a notification;
/// a request without `id` the front refuses is answered too). `None`: it cannot be told.
fn must_answer(text: &str) -> Option<bool> {
    if !text.trim_start().starts_with('{') {
        return Some(true);
    }
    Some(members(text)?.contains_key("id"))
}

impl Rpc {
    /// A dev chain of four blocks, its node, and seed requests: one per method, and envelope
    /// edge cases the node serves (id kinds, leading whitespace, a batch mixing calls with
    /// refused entries and notifications).
    pub(crate) fn new() -> anyhow::Result<Self> {
        let dev = devchain::DevChain::new(4)?;
        let alice = dev
            .config
            .dev_accounts
            .first()
            .map(|a| a.address())
            .unwrap_or_default();
        let bob = Address::repeat_byte(0xb0);
        let (_, block1) = dev.header(1)?;
        let tx0 = lightprov_verifier::keccak256(dev.txs.first().cloned().unwrap_or_default());
        let state_key = {
            let mut k = vec![1u8];
            k.extend_from_slice(alice.as_slice());
            lightprov_verifier::keccak256(&k)
        };
        let raw_next = hex::encode(&dev.next_tx);
        let devchain::DevChain { dir, chain, .. } = dev;
        let node = Arc::new(Node::in_process(chain));
        let module = module(node)?;
        let methods: Vec<String> = module.method_names().map(str::to_owned).collect();
        let names: HashSet<&'static str> = module.method_names().collect();
        let runtime = tokio::runtime::Builder::new_current_thread().build()?;

        let mut seeds: Vec<(String, String)> = vec![];
        for m in [
            "eth_chainId",
            "net_version",
            "web3_clientVersion",
            "eth_syncing",
            "eth_accounts",
            "eth_blockNumber",
            "eth_gasPrice",
            "eth_maxPriorityFeePerGas",
            "lightprov_params",
            "lightprov_status",
            "evm_mine",
        ] {
            seeds.push((m.into(), req(m, json!([]))));
        }
        let more = [
            (
                "eth_estimateGas",
                json!([{ "from": alice, "to": bob, "value": "0x1" }]),
            ),
            ("eth_getBlockByNumber", json!(["0x1", true])),
            ("eth_getBlockByNumber", json!(["latest", false])),
            ("eth_getBlockByHash", json!([block1, true])),
            ("eth_getProof", json!([alice, ["0x0", "0x01"], "latest"])),
            ("eth_getBalance", json!([alice, "0x2"])),
            ("eth_getTransactionCount", json!([alice, "pending"])),
            (
                "eth_getStorageAt",
                json!([alice, "0x0", { "blockHash": block1 }]),
            ),
            ("eth_getCode", json!([bob, "earliest"])),
            ("eth_sendRawTransaction", json!([raw_next])),
            ("eth_getTransactionByHash", json!([tx0])),
            ("eth_getTransactionReceipt", json!([tx0])),
            ("lightprov_getLvmtProof", json!([state_key, "latest"])),
            ("lightprov_getTransactionProof", json!(["0x1", "0x0"])),
            (
                "lightprov_getTransactionProof",
                json!([{ "blockHash": block1 }, "0x1000"]),
            ),
        ];
        for (m, p) in more {
            seeds.push((m.into(), req(m, p)));
        }
        for scheme in ["cole", "cole-star", "lvmt", "mpt"] {
            seeds.push((
                format!("lightprov_getHistory {scheme}"),
                req(
                    "lightprov_getHistory",
                    json!([state_key, "0x0", "latest", scheme]),
                ),
            ));
        }
        seeds.push((
            "batch".into(),
            format!(
                "[{},{}]",
                req("eth_blockNumber", json!([])),
                req("eth_getBalance", json!([bob, "latest"]))
            ),
        ));

        // Envelope edge cases that are still served.
        for (name, body) in [
            (
                "id string",
                r#"{"jsonrpc":"2.0","id":"a-1","method":"eth_chainId","params":[]}"#.to_owned(),
            ),
            (
                "id null",
                r#"{"jsonrpc":"2.0","id":null,"method":"eth_chainId"}"#.to_owned(),
            ),
            (
                "id max",
                format!(
                    r#"{{"jsonrpc":"2.0","id":{},"method":"eth_blockNumber","params":null}}"#,
                    u64::MAX
                ),
            ),
            (
                "whitespace",
                format!(" \t\r\n{}\n", req("eth_getBalance", json!([alice, "latest"]))),
            ),
            (
                "batch edges",
                [
                    req("eth_blockNumber", json!([])),
                    r#"{"jsonrpc":"1.0","id":2,"method":"eth_chainId"}"#.into(),
                    r#"{"jsonrpc":"2.0","method":"eth_chainId","params":[]}"#.into(),
                    r#"{"jsonrpc":"2.0","id":3,"id":4,"method":"eth_chainId"}"#.into(),
                    "7".into(),
                    "[]".into(),
                    r#"[[{"jsonrpc":"2.0","id":5,"method":"eth_chainId"}]]"#.into(),
                    r#"{"jsonrpc":"2.0","id":6,"method":"eth_nope"}"#.into(),
                    r#"{"jsonrpc":"2.0","id":{},"method":"eth_chainId"}"#.into(),
                    r#"{"jsonrpc":"2.0","id":8,"method":"eth_getBalance","params":7}"#.into(),
                    r#"{"jsonrpc":"2.0","id":"s","method":"eth_getBlockByNumber","params":["0x1",false]}"#.into(),
                ]
                .join(","),
            ),
        ] {
            let body = if name.starts_with("batch") {
                format!("[{body}]")
            } else {
                body
            };
            seeds.push((name.into(), body));
        }

        let interesting = vec![
            json!("0x"),
            json!("0x0"),
            json!("0x00"),
            json!("0x1"),
            json!("0x4"),
            json!("0xffffffffffffffff"),
            json!("0x10000000000000000"),
            json!(format!("0x{}", "f".repeat(64))),
            json!(format!("0x{}", "0".repeat(64))),
            json!(format!("0x{}", "f".repeat(65))),
            json!(format!("0x{}", "ab".repeat(20))),
            json!("latest"),
            json!("earliest"),
            json!("pending"),
            json!("safe"),
            json!("finalized"),
            json!("cole"),
            json!("cole-star"),
            json!("lvmt"),
            json!("mpt"),
            json!(""),
            json!(-1),
            json!(0),
            json!(1),
            json!(9_007_199_254_740_993_u64),
            json!(u64::MAX),
            json!(1e308),
            json!(1.5),
            json!(true),
            Value::Null,
            json!([]),
            json!({}),
            json!({ "blockHash": block1 }),
            json!({ "blockNumber": "0x1" }),
            json!({ "blockHash": block1, "requireCanonical": true }),
            json!(block1),
            json!(tx0),
            json!(state_key),
            json!(alice),
            json!(vec!["0x0"; 1025]),
            json!(format!("0x{}", "a".repeat(20_000))),
            json!(raw_next),
        ];
        let t = Self {
            _dir: dir,
            module,
            runtime,
            corpus: Corpus {
                name: "rpc",
                seeds: seeds
                    .into_iter()
                    .map(|(n, s)| (n, s.into_bytes()))
                    .collect(),
            },
            methods,
            names,
            interesting,
            mined: AtomicU64::new(0),
        };
        Ok(t)
    }

    /// A body the front refused with `answer` and HTTP `status`.
    fn refused(&self, data: &[u8], status: u16, answer: &str) -> Result<Outcome, Finding> {
        let bad = |why: &str| {
            Finding::new(
                "bad-refusal",
                format!(
                    "{why}: request {:.300} got HTTP {status} {answer:.300}",
                    String::from_utf8_lossy(data)
                ),
            )
        };
        if status != 200 && !(400..500).contains(&status) {
            return Err(bad("neither 200 nor a client error"));
        }
        let (code, msg, id) = front_error(answer).map_err(|e| bad(&e))?;
        if !id.is_null() {
            let request = std::str::from_utf8(data).ok();
            if request.and_then(|r| member(r, "id")) != Some(id) {
                return Err(bad("an id that is not the request's"));
            }
        }
        // A parse error exactly when the body is not JSON, and "empty" exactly when it is
        // JSON's whitespace only.
        if (code == -32700) == is_json(data) {
            return Err(bad(if code == -32700 {
                "a parse error for a JSON body"
            } else {
                "a body that is not JSON taken as one"
            }));
        }
        let blank = data.iter().all(|b| JSON_WHITESPACE.contains(b));
        if msg.contains("empty body") != blank {
            return Err(bad(if blank {
                "a blank body not called empty"
            } else {
                "a body called empty that is not"
            }));
        }
        let depth = if code == -32700 {
            Depth::Undecoded
        } else {
            Depth::Decoded
        };
        Ok(Outcome::new(depth, front_class(code, &msg)))
    }

    /// One call the front forwarded, sent to jsonrpsee.
    fn call(&self, text: &str) -> Result<Call, Finding> {
        let method = member(text, "method")
            .and_then(|m| m.as_str().map(str::to_owned))
            .filter(|m| self.methods.iter().any(|x| x == m))
            .unwrap_or_else(|| "other".into());
        if method == "evm_mine" && self.mined.load(Ordering::Relaxed) >= MINE_CAP {
            return Ok(Call::Skipped);
        }
        let (resp, _rx) = self
            .runtime
            .block_on(self.module.raw_json_request(text, 1))
            .map_err(|e| {
                Finding::new(
                    "front-disagreement",
                    format!("the front forwarded {text:.300}, which jsonrpsee cannot read: {e}"),
                )
            })?;
        let bad = |why: &str| {
            Finding::new(
                "bad-response",
                format!("{why}: request {text:.300} got {:.300}", resp.get()),
            )
        };
        let v: Value = serde_json::from_str(resp.get()).map_err(|_| bad("not JSON"))?;
        if v.get("jsonrpc") != Some(&json!("2.0")) || v.get("id").is_none() {
            return Err(bad("no jsonrpc 2.0 envelope"));
        }
        if v.get("id") != member(text, "id").as_ref() {
            return Err(bad("an id that is not the request's"));
        }
        let outcome = match (v.get("result"), v.get("error")) {
            (Some(_), None) => {
                if method == "evm_mine" {
                    self.mined.fetch_add(1, Ordering::Relaxed);
                }
                Outcome::new(Depth::Accepted, format!("{method}:ok"))
            }
            (None, Some(e)) => {
                let code = e
                    .get("code")
                    .and_then(Value::as_i64)
                    .ok_or_else(|| bad("error without an integer code"))?;
                let msg = e
                    .get("message")
                    .and_then(Value::as_str)
                    .ok_or_else(|| bad("error without a message"))?;
                if code == -32700 || code == -32600 {
                    // The front answers those itself, naming the problem.
                    return Err(Finding::new(
                        "front-disagreement",
                        format!(
                            "the front forwarded {text:.300}, which jsonrpsee refused: {:.300}",
                            resp.get()
                        ),
                    ));
                }
                let depth = match code {
                    -32601 | -32602 => Depth::Decoded,
                    _ => Depth::Final,
                };
                // Up to the first quote: what follows quotes the input (a field name, a value)
                // in serde's words, and would make classes grow with the inputs.
                let head = match msg.find(['"', '`', '\'']) {
                    Some(i) => format!("{}…", msg.get(..i).unwrap_or_default()),
                    None => msg.to_owned(),
                };
                Outcome::new(depth, format!("{method}:{}", error_class(code, &head, 40)))
            }
            _ => return Err(bad("neither exactly a result nor an error")),
        };
        Ok(Call::Answered(outcome, resp.get().to_owned()))
    }

    /// The front's verdict on an expensive flag.
    fn check_expensive(&self, data: &[u8], calls: &[&str], flagged: bool) -> Result<(), Finding> {
        let expensive = calls.iter().any(|c| {
            member(c, "method")
                .and_then(|m| m.as_str().map(is_expensive))
                .unwrap_or(false)
        });
        if expensive != flagged {
            return Err(Finding::new(
                "bad-triage",
                format!(
                    "expensive {flagged}, but the calls forwarded are{} expensive: {:.300}",
                    if expensive { "" } else { " not" },
                    String::from_utf8_lossy(data)
                ),
            ));
        }
        Ok(())
    }

    /// A batch, as the node answers it.
    fn batch(
        &self,
        data: &[u8],
        forward: Option<&[u8]>,
        refused: &[String],
        expensive: bool,
    ) -> Result<Outcome, Finding> {
        let bad = |why: String| {
            Finding::new(
                "bad-batch",
                format!("{why}: request {:.300}", String::from_utf8_lossy(data)),
            )
        };
        let entries: Vec<&RawValue> = serde_json::from_slice(data)
            .map_err(|e| bad(format!("the front took a body that is not an array ({e})")))?;
        if entries.is_empty() || entries.len() > MAX_BATCH as usize {
            return Err(bad(format!("a batch of {} taken", entries.len())));
        }
        let ids: Vec<Value> = entries
            .iter()
            .filter_map(|e| member(e.get(), "id"))
            .collect();
        let mut deepest: Option<Outcome> = None;
        let mut keep = |o: Outcome| {
            if deepest.as_ref().is_none_or(|d| o.depth >= d.depth) {
                deepest = Some(o);
            }
        };
        for r in refused {
            let (code, msg, id) =
                front_error(r).map_err(|e| bad(format!("refused entry: {e}: {r:.300}")))?;
            if !id.is_null() && !ids.contains(&id) {
                return Err(bad(format!(
                    "refused entry with an id of no entry: {r:.300}"
                )));
            }
            keep(Outcome::new(
                if code == -32700 {
                    Depth::Undecoded
                } else {
                    Depth::Decoded
                },
                front_class(code, &msg),
            ));
        }
        // The calls forwarded: entries of the body, in order.
        let calls: Vec<&RawValue> = match forward {
            None => vec![],
            Some(f) => serde_json::from_slice(f)
                .map_err(|e| bad(format!("a forwarded batch that is not an array ({e})")))?,
        };
        let mut rest = entries.iter();
        for c in &calls {
            if !rest.any(|e| e.get() == c.get()) {
                return Err(bad(format!(
                    "forwarded {:.300}, which is not an entry (in order)",
                    c.get()
                )));
            }
        }
        if forward.is_some() && calls.is_empty() {
            return Err(bad("an empty batch forwarded".into()));
        }
        let texts: Vec<&str> = calls.iter().map(|c| c.get()).collect();
        self.check_expensive(data, &texts, expensive)?;
        // jsonrpsee's answer: one per call, in an array.
        let mut answers = Vec::with_capacity(calls.len());
        for t in &texts {
            match self.call(t)? {
                Call::Answered(o, a) => {
                    keep(o);
                    answers.push(a);
                }
                Call::Skipped => {
                    return Ok(Outcome::new(Depth::Decoded, "batch:evm_mine:skipped"));
                }
            }
        }
        let answered = if calls.is_empty() {
            String::new()
        } else {
            format!("[{}]", answers.join(","))
        };
        // The node's answer.
        let answer = if refused.is_empty() {
            answered
        } else {
            front::merge_batch(answered.as_bytes(), refused)
        };
        let answerable = entries
            .iter()
            .filter(|e| must_answer(e.get()) == Some(true))
            .count();
        if answer.is_empty() {
            if answerable > 0 {
                return Err(bad(format!(
                    "an empty answer to a batch with {answerable} requests"
                )));
            }
            return Ok(Outcome::new(Depth::Decoded, "batch:notifications"));
        }
        let merged: Vec<Value> = serde_json::from_str(&answer).map_err(|e| {
            bad(format!(
                "an answer that is not a JSON array ({e}): {answer:.300}"
            ))
        })?;
        let expected = calls.len() + refused.len();
        if merged.len() != expected || merged.len() < answerable || merged.len() > entries.len() {
            return Err(bad(format!(
                "{} answers for {} entries ({expected} answered, at least {answerable}): {answer:.300}",
                merged.len(),
                entries.len()
            )));
        }
        for m in &merged {
            let ok = m.get("jsonrpc") == Some(&json!("2.0"))
                && m.get("id").is_some()
                && (m.get("result").is_some() != m.get("error").is_some());
            if !ok {
                return Err(bad(format!(
                    "a malformed answer in the batch: {:.300}",
                    m.to_string()
                )));
            }
        }
        let o = deepest.unwrap_or_else(|| Outcome::new(Depth::Decoded, "empty"));
        Ok(Outcome::new(o.depth, format!("batch:{}", o.class)))
    }
}

/// The message without quoted parts (serde errors quote the input), so that classes do not
/// grow with the inputs.
fn unquote(msg: &str) -> String {
    let mut out = String::with_capacity(msg.len());
    let mut quote: Option<char> = None;
    for c in msg.chars() {
        match (quote, c) {
            (None, '"' | '`') => {
                quote = Some(c);
                out.push('…');
            }
            (None, _) => out.push(c),
            (Some(q), _) if c == q => quote = None,
            (Some(_), _) => {}
        }
    }
    out
}

/// Counts the nodes of a JSON value.
fn count(v: &Value) -> usize {
    1 + match v {
        Value::Array(a) => a.iter().map(count).sum(),
        Value::Object(o) => o.values().map(count).sum(),
        _ => 0,
    }
}

/// The `n`-th node in pre-order.
fn nth(v: &mut Value, n: usize) -> &mut Value {
    if n == 0 {
        return v;
    }
    let mut n = n - 1;
    let children: Vec<&mut Value> = match v {
        Value::Array(a) => a.iter_mut().collect(),
        Value::Object(o) => o.values_mut().collect(),
        _ => Vec::new(),
    };
    for c in children {
        let k = count(c);
        if n < k {
            return nth(c, n);
        }
        n -= k;
    }
    unreachable!("n is below count(v)")
}

fn edit_string(s: &mut String, rng: &mut Rng) {
    let at = |s: &String, i: usize| {
        (0..=i.min(s.len()))
            .rev()
            .find(|&k| s.is_char_boundary(k))
            .unwrap_or(0)
    };
    match rng.below(7) {
        0 => {
            let k = at(s, rng.below(s.len() + 1));
            s.truncate(k);
        }
        1 => s.push_str(["0", "f", "00", "g", "\u{0}", "é"][rng.below(6)]),
        2 => *s = s.trim_start_matches("0x").to_owned(),
        3 => *s = s.to_uppercase(),
        4 => {
            let k = at(s, 2);
            s.insert(k, '0');
        }
        5 => *s = format!("{s}{s}"),
        _ => {
            s.pop();
        }
    }
}

/// A request object of `v`: `v` itself, or an entry of a batch.
fn request<'a>(v: &'a mut Value, rng: &mut Rng) -> Option<&'a mut serde_json::Map<String, Value>> {
    match v {
        Value::Object(o) => Some(o),
        Value::Array(a) if !a.is_empty() => {
            let i = rng.below(a.len());
            a[i].as_object_mut()
        }
        _ => None,
    }
}

/// Edits of the text that a JSON value cannot hold: a member twice, a byte order mark or
/// other leading bytes, trailing bytes.
fn text_edit(text: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut out = text.to_vec();
    match rng.below(4) {
        0 => {
            // A member again, after the first `{`.
            let member: &[u8] = [
                &br#""id":7,"#[..],
                br#""jsonrpc":"2.0","#,
                br#""method":"eth_chainId","#,
                br#""params":[],"#,
            ][rng.below(4)];
            if let Some(i) = out.iter().position(|&b| b == b'{') {
                out.splice(i + 1..i + 1, member.iter().copied());
            }
        }
        1 => {
            let lead: &[u8] = [
                &b" \t\r\n"[..],
                b"\xef\xbb\xbf",
                b"\xc2\xa0",
                b"\x0c",
                b"\xff",
            ][rng.below(5)];
            out.splice(0..0, lead.iter().copied());
        }
        2 => {
            let trail: &[u8] = [&b"\n"[..], b" ,", b"]", b"\x00", b"{}"][rng.below(5)];
            out.extend_from_slice(trail);
        }
        _ => {
            // The first member's key, escaped.
            if let Some(i) = out.windows(2).position(|w| w == b"{\"") {
                let at = i + 2;
                if let Some(&c) = out.get(at).filter(|c| c.is_ascii_alphanumeric()) {
                    let esc = format!("\\u{c:04x}");
                    out.splice(at..at + 1, esc.bytes());
                }
            }
        }
    }
    out
}

impl Target for Rpc {
    fn run(&self, _seed: usize, data: &[u8]) -> Result<Outcome, Finding> {
        let triage = front::triage(data, &self.names, MAX_BATCH);
        if !matches!(triage, Triage::Refused { .. }) && !is_json(data) {
            return Err(Finding::new(
                "bad-triage",
                format!(
                    "a body that is not JSON taken: {:.300}",
                    String::from_utf8_lossy(data)
                ),
            ));
        }
        match triage {
            Triage::Refused { status, answer } => self.refused(data, status.as_u16(), &answer),
            Triage::Notification => {
                let text = std::str::from_utf8(data).ok();
                if text.and_then(must_answer) != Some(false) {
                    return Err(Finding::new(
                        "bad-triage",
                        format!(
                            "no answer to a request that is not a notification: {:.300}",
                            String::from_utf8_lossy(data)
                        ),
                    ));
                }
                Ok(Outcome::new(Depth::Decoded, "notification"))
            }
            Triage::Forward { body, expensive } => {
                let cut = data.len() - body.len().min(data.len());
                let whitespace = data.get(..cut).unwrap_or_default();
                if !data.ends_with(&body) || !whitespace.iter().all(|b| JSON_WHITESPACE.contains(b))
                {
                    return Err(Finding::new(
                        "bad-triage",
                        format!(
                            "forwarded {:.300} for {:.300}",
                            String::from_utf8_lossy(&body),
                            String::from_utf8_lossy(data)
                        ),
                    ));
                }
                let text = std::str::from_utf8(&body).map_err(|e| {
                    Finding::new(
                        "bad-triage",
                        format!("forwarded a body that is not UTF-8: {e}"),
                    )
                })?;
                self.check_expensive(data, &[text], expensive)?;
                Ok(match self.call(text)? {
                    Call::Answered(o, _) => o,
                    Call::Skipped => Outcome::new(Depth::Decoded, "evm_mine:skipped"),
                })
            }
            Triage::Batch {
                forward,
                refused,
                expensive,
            } => self.batch(data, forward.as_deref(), &refused, expensive),
        }
    }

    fn corpus(&self) -> &Corpus {
        &self.corpus
    }

    fn mutate(&self, _seed: usize, data: &[u8], rng: &mut Rng) -> Option<Vec<u8>> {
        let mut v: Value = serde_json::from_slice(data).ok()?;
        match rng.below(14) {
            0 => {
                let m = rng.pick(&self.methods)?.clone();
                request(&mut v, rng)?.insert("method".into(), json!(m));
            }
            1 => {
                let id = [
                    json!(null),
                    json!("x"),
                    json!(""),
                    json!([]),
                    json!({}),
                    json!(1.5),
                    json!(-1),
                    json!(0),
                    json!(u64::MAX),
                    json!(true),
                ];
                let id = rng.pick(&id)?.clone();
                request(&mut v, rng)?.insert("id".into(), id);
            }
            2 => {
                let o = request(&mut v, rng)?;
                let keys: Vec<String> = o.keys().cloned().collect();
                let k = rng.pick(&keys)?.clone();
                o.remove(&k);
            }
            3 => {
                let versions = [
                    json!("1.0"),
                    json!("2.0 "),
                    json!("2"),
                    json!(2.0),
                    json!(2),
                    json!(null),
                    json!(["2.0"]),
                ];
                let version = rng.pick(&versions)?.clone();
                request(&mut v, rng)?.insert("jsonrpc".into(), version);
            }
            4 => {
                // Batches: wrap, add an entry (a copy, a notification, junk), nest.
                let junk = [
                    json!(1),
                    json!("x"),
                    json!(null),
                    json!([]),
                    json!([[]]),
                    json!({}),
                ];
                match (&mut v, rng.below(4)) {
                    (Value::Array(a), 0) if !a.is_empty() => {
                        let mut x = a[rng.below(a.len())].clone();
                        if rng.one_in(2)
                            && let Some(o) = x.as_object_mut()
                        {
                            o.remove("id");
                        }
                        a.push(x);
                    }
                    (Value::Array(a), 1) => a.push(rng.pick(&junk)?.clone()),
                    (Value::Array(a), 2) => a.clear(),
                    _ => v = json!([v]),
                }
            }
            5 => return Some(text_edit(&serde_json::to_vec(&v).ok()?, rng)),
            _ => {
                let n = rng.below(count(&v));
                let node = nth(&mut v, n);
                match (rng.below(3), &mut *node) {
                    (0, Value::String(s)) => edit_string(s, rng),
                    (0, Value::Array(a)) if !a.is_empty() => {
                        let i = rng.below(a.len());
                        match rng.below(3) {
                            0 => {
                                a.remove(i);
                            }
                            1 => {
                                let x = a[i].clone();
                                a.push(x);
                            }
                            _ => a.push(rng.pick(&self.interesting)?.clone()),
                        }
                    }
                    _ => *node = rng.pick(&self.interesting)?.clone(),
                }
            }
        }
        serde_json::to_vec(&v).ok()
    }

    fn dictionary(&self) -> Vec<Vec<u8>> {
        let mut d: Vec<Vec<u8>> = self
            .methods
            .iter()
            .map(|m| format!("\"{m}\"").into_bytes())
            .collect();
        for t in [
            "\"latest\"",
            "\"0x\"",
            "null",
            "[]",
            "{}",
            "\"params\":",
            "\"id\":",
            "\"jsonrpc\":\"2.0\"",
            ",",
            "\\u0000",
            "1e999",
            "-0",
            // The envelope.
            "\"jsonrpc\":\"1.0\",",
            "\"jsonrpc\":\"2.0\",",
            "\"id\":null,",
            "\"id\":\"\",",
            "\"id\":18446744073709551616,",
            "\"id\":-1,",
            "\"id\":1,\"id\":2,",
            "\"method\":\"eth_chainId\",",
            "{\"jsonrpc\":\"2.0\",\"method\":\"eth_chainId\"}",
            "[[",
            "]]",
            "[{}]",
            "\\ud800",
            " \t\r\n",
            "\u{a0}",
            "\u{feff}",
        ] {
            d.push(t.as_bytes().to_vec());
        }
        // Bytes that are not UTF-8: a lone continuation byte, an overlong NUL, a surrogate.
        for t in [&b"\xff"[..], b"\xc0\x80", b"\xed\xa0\x80", b"\x80"] {
            d.push(t.to_vec());
        }
        d
    }

    fn regression(&self, _seed: usize, data: &[u8], why: &str) -> Option<Regression> {
        let name = format!("fuzz-rpc-{}", lightprov_fuzz::short_hash(data));
        let body = json!({
            "description": format!("{name}: found by the rpc fuzz target: {why}"),
            "request": String::from_utf8_lossy(data),
            "requestHex": hex::encode(data),
        });
        Some(Regression {
            path: format!("server-mock/tests/fuzz-regressions/{name}.json").into(),
            content: serde_json::to_string_pretty(&body).unwrap_or_default() + "\n",
            count_family: None,
        })
    }
}

/// Sends one request body to a fresh dev node and checks the answer (used by the regression
/// test that replays `server-mock/tests/fuzz-regressions`, which includes this module).
#[allow(
    dead_code,
    reason = "the fuzz binary replays crash files through its command line"
)]
pub(crate) fn replay(bodies: &[Vec<u8>]) -> anyhow::Result<Vec<Result<Outcome, Finding>>> {
    let t = Rpc::new()?;
    Ok(bodies.iter().map(|b| t.run(0, b)).collect())
}
