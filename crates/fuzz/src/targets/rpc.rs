//! `rpc`: JSON-RPC request bodies through lightprov-node's `rpc::module`, called in-process
//! (`RpcModule::raw_json_request`, no socket) on a dev chain with every engine.
//!
//! Every request must get a well-formed JSON-RPC answer — a result or an error object — and
//! never a panic or a hang. A body that is not a JSON-RPC request at all is refused by
//! jsonrpsee's parser before any handler (the server answers it with a parse error); those
//! count as undecoded. A JSON array is sent as a batch, item by item (at most 16).
//!
//! `evm_mine` is served for the first [`MINE_CAP`] calls of a run and skipped after that, so a
//! long run does not grow the chain without bound.

use std::sync::{
    Arc, RwLock,
    atomic::{AtomicU64, Ordering},
};

use alloy_primitives::Address;
use jsonrpsee::RpcModule;
use lightprov_node::rpc::{Node, module};
use lightprov_types::hex;
use serde_json::{Value, json};

use crate::{
    Depth, Finding, Outcome, Regression, Target, rng::Rng, strip_digits, targets::devchain,
};

/// Blocks a run may mine through `evm_mine`.
pub const MINE_CAP: u64 = 64;

/// The `rpc` target.
pub struct Rpc {
    _dir: tempfile::TempDir,
    module: RpcModule<Arc<Node>>,
    runtime: tokio::runtime::Runtime,
    seeds: Vec<(String, Vec<u8>)>,
    methods: Vec<String>,
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

impl Rpc {
    /// A dev chain of four blocks, its node, and one seed request per method.
    pub fn new() -> anyhow::Result<Self> {
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
        let node = Arc::new(Node {
            chain: RwLock::new(chain),
            dishonest: None,
            new_tx: tokio::sync::Notify::new(),
            on_demand: false,
            max_history_range: 32,
        });
        let module = module(node)?;
        let methods: Vec<String> = module.method_names().map(str::to_owned).collect();
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
            seeds: seeds
                .into_iter()
                .map(|(n, s)| (n, s.into_bytes()))
                .collect(),
            methods,
            interesting,
            mined: AtomicU64::new(0),
        };
        Ok(t)
    }

    fn call(&self, text: &str) -> Result<Outcome, Finding> {
        let method = serde_json::from_str::<Value>(text)
            .ok()
            .and_then(|v| v.get("method").and_then(Value::as_str).map(str::to_owned))
            .filter(|m| self.methods.iter().any(|x| x == m))
            .unwrap_or_else(|| "other".into());
        if method == "evm_mine" && self.mined.load(Ordering::Relaxed) >= MINE_CAP {
            return Ok(Outcome::new(Depth::Decoded, "evm_mine:skipped"));
        }
        let (resp, _rx) = match self.runtime.block_on(self.module.raw_json_request(text, 1)) {
            Ok(r) => r,
            Err(e) => {
                return Ok(Outcome::new(
                    Depth::Undecoded,
                    format!("request:{:?}", e.classify()),
                ));
            }
        };
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
        match (v.get("result"), v.get("error")) {
            (Some(_), None) => {
                if method == "evm_mine" {
                    self.mined.fetch_add(1, Ordering::Relaxed);
                }
                Ok(Outcome::new(Depth::Accepted, format!("{method}:ok")))
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
                let depth = match code {
                    -32601 | -32602 | -32600 | -32700 => Depth::Decoded,
                    _ => Depth::Final,
                };
                let short: String = strip_digits(&unquote(msg)).chars().take(40).collect();
                Ok(Outcome::new(depth, format!("{method}:{code}:{short}")))
            }
            _ => Err(bad("neither exactly a result nor an error")),
        }
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

impl Target for Rpc {
    fn name(&self) -> &'static str {
        "rpc"
    }

    fn seeds(&self) -> &[(String, Vec<u8>)] {
        &self.seeds
    }

    fn run(&self, _seed: usize, data: &[u8]) -> Result<Outcome, Finding> {
        let Ok(text) = std::str::from_utf8(data) else {
            return Ok(Outcome::new(Depth::Undecoded, "utf8"));
        };
        if text.trim_start().starts_with('[') {
            let Ok(items) = serde_json::from_str::<Vec<&serde_json::value::RawValue>>(text) else {
                return Ok(Outcome::new(Depth::Undecoded, "batch:parse"));
            };
            let mut deepest = Outcome::new(Depth::Undecoded, "batch:empty");
            for it in items.iter().take(16) {
                let o = self.call(it.get())?;
                if o.depth >= deepest.depth {
                    deepest = Outcome::new(o.depth, format!("batch:{}", o.class));
                }
            }
            return Ok(deepest);
        }
        self.call(text)
    }

    fn mutate(&self, _seed: usize, data: &[u8], rng: &mut Rng) -> Option<Vec<u8>> {
        let mut v: Value = serde_json::from_slice(data).ok()?;
        match rng.below(10) {
            0 => {
                if let Some(o) = v.as_object_mut() {
                    let m = rng.pick(&self.methods)?.clone();
                    o.insert("method".into(), json!(m));
                }
            }
            1 => {
                if let Some(o) = v.as_object_mut() {
                    let id = [json!(null), json!("x"), json!([]), json!(1.5), json!(-1)];
                    o.insert("id".into(), rng.pick(&id)?.clone());
                }
            }
            2 => {
                if let Some(o) = v.as_object_mut() {
                    let keys: Vec<String> = o.keys().cloned().collect();
                    let k = rng.pick(&keys)?.clone();
                    o.remove(&k);
                }
            }
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
        ] {
            d.push(t.as_bytes().to_vec());
        }
        d
    }

    fn regression(&self, _seed: usize, data: &[u8], why: &str) -> Option<Regression> {
        let name = format!("fuzz-rpc-{}", crate::short_hash(data));
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
/// test that replays `server-mock/tests/fuzz-regressions`).
pub fn replay(bodies: &[Vec<u8>]) -> anyhow::Result<Vec<Result<Outcome, Finding>>> {
    let t = Rpc::new()?;
    Ok(bodies.iter().map(|b| t.run(0, b)).collect())
}
