//! `debug_traceCall` with geth's `prestateTracer` (and its `diffMode`), by the code of
//! `lightprov-evm` over the state the node proves to itself, as `eth_call` runs ([`crate::calls`]).
//!
//! Params `[tx, block?, config?]`: the call object as `eth_call` reads it; a block (default
//! `latest`; `pending` refused as geth refuses it); geth's `TraceCallConfig` — `tracer`,
//! `tracerConfig` (`diffMode`, `disableCode`, `disableStorage`, `includeEmpty`), `timeout` (a Go
//! duration, default 5 s). The struct logger's own options are ignored, as geth ignores them with
//! a tracer, and so are fields geth does not know. `stateOverrides`, `blockOverrides` and
//! `txIndex` are refused (`-32602`), as `eth_call` here refuses overrides.

use std::time::{Duration, Instant};

use alloy_eips::{BlockId, BlockNumberOrTag};
use jsonrpsee::types::{ErrorObjectOwned, Params};
use lightprov_evm::{PrestateConfig, PrestateTrace, TracedAccount};
use serde_json::{Map, Value};

use crate::{
    calls,
    handler::{Node, RpcResult, arg, args, invalid, not_served, opt_arg, read, resolve},
};

/// geth's `defaultTraceTimeout`.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);

/// The tracers geth 1.17 knows by name besides `prestateTracer`: its native ones and the
/// JavaScript ones it ships.
pub const OTHER_GETH_TRACERS: &[&str] = &[
    "4byteTracer",
    "callTracer",
    "erc7562Tracer",
    "flatCallTracer",
    "keccak256PreimageTracer",
    "muxTracer",
    "noopTracer",
    "4byteTracerLegacy",
    "bigramTracer",
    "callTracerLegacy",
    "evmdisTracer",
    "noopTracerLegacy",
    "opcountTracer",
    "prestateTracerLegacy",
    "trigramTracer",
    "unigramTracer",
];

/// geth's error for a failed trace: `-32000` with its message.
fn failed(message: impl Into<String>) -> ErrorObjectOwned {
    ErrorObjectOwned::owned(-32000, message.into(), None::<()>)
}

/// A boolean field of `obj`, named `name` in errors (`false` when absent or null).
fn flag(obj: &Map<String, Value>, key: &str, name: &str) -> RpcResult<bool> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => Err(invalid(name, "expected a boolean")),
    }
}

/// A string field of `obj` (`None` when absent or null).
fn text<'v>(obj: &'v Map<String, Value>, key: &str) -> RpcResult<Option<&'v str>> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(invalid(key, "expected a string")),
    }
}

/// What `debug_traceCall`'s config asks for, once checked.
#[derive(Debug)]
struct Config {
    prestate: PrestateConfig,
    timeout: Duration,
}

/// Reads geth's `TraceCallConfig` (`null` or absent: the struct logger, which is not served).
fn config(v: Option<&Value>) -> RpcResult<Config> {
    let empty = Map::new();
    let obj = match v {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(o)) => o,
        Some(_) => return Err(invalid("config", "expected an object")),
    };
    for (key, what) in [
        (
            "stateOverrides",
            "state overrides are not supported (as by eth_call here)",
        ),
        (
            "blockOverrides",
            "block overrides are not supported (as by eth_call here)",
        ),
        (
            "txIndex",
            "tracing on the state within a block is not supported: trace at the block before",
        ),
    ] {
        if !obj.get(key).is_none_or(Value::is_null) {
            return Err(invalid(key, what));
        }
    }
    let tracer = text(obj, "tracer")?;
    match tracer {
        Some("prestateTracer") => {}
        None => {
            return Err(not_served(
                "the struct logger (no tracer): lightprov-node traces calls with {\"tracer\": \"prestateTracer\"} only",
            ));
        }
        Some(name) if OTHER_GETH_TRACERS.contains(&name) => {
            return Err(not_served(format!(
                "tracer {name}: lightprov-node traces calls with prestateTracer only"
            )));
        }
        Some(name) if is_identifier(name) => {
            // geth takes any other name for JavaScript code, which names nothing defined.
            return Err(failed(format!(
                "ReferenceError: {name} is not defined at <eval>:1:2(0)"
            )));
        }
        Some(code) => {
            return Err(not_served(format!(
                "tracer {}: JavaScript tracers are not run here; lightprov-node traces calls with prestateTracer only",
                code.chars().take(64).collect::<String>()
            )));
        }
    }
    let tc = match obj.get("tracerConfig") {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(o)) => o,
        Some(_) => return Err(invalid("tracerConfig", "expected an object")),
    };
    let prestate = PrestateConfig {
        diff_mode: flag(tc, "diffMode", "tracerConfig.diffMode")?,
        disable_code: flag(tc, "disableCode", "tracerConfig.disableCode")?,
        disable_storage: flag(tc, "disableStorage", "tracerConfig.disableStorage")?,
        include_empty: flag(tc, "includeEmpty", "tracerConfig.includeEmpty")?,
    };
    let timeout = match text(obj, "timeout")? {
        None => DEFAULT_TIMEOUT,
        Some(s) => go_duration(s).map_err(|e| invalid("timeout", e))?,
    };
    Ok(Config { prestate, timeout })
}

/// Whether `s` is a JavaScript identifier (ASCII), which geth evaluates as a name.
fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

/// Go's `time.ParseDuration` (`300ms`, `1.5h`, `2h45m`; units `ns`, `us`/`µs`/`μs`, `ms`, `s`,
/// `m`, `h`), with Go's messages; a negative duration is zero (it has run out already).
pub fn go_duration(orig: &str) -> Result<Duration, String> {
    let invalid = || format!("time: invalid duration \"{orig}\"");
    let (neg, mut s) = match orig.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, orig.strip_prefix('+').unwrap_or(orig)),
    };
    if s == "0" {
        return Ok(Duration::ZERO);
    }
    if s.is_empty() {
        return Err(invalid());
    }
    let mut total: u128 = 0;
    while !s.is_empty() {
        let digits = |t: &str| t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
        let n = digits(s);
        let (int, rest) = s.split_at(n);
        s = rest;
        let mut frac = "";
        if let Some(rest) = s.strip_prefix('.') {
            let m = digits(rest);
            (frac, s) = rest.split_at(m);
        }
        if int.is_empty() && frac.is_empty() {
            return Err(invalid());
        }
        let u = s
            .find(|c: char| c == '.' || c.is_ascii_digit())
            .unwrap_or(s.len());
        if u == 0 {
            return Err(format!("time: missing unit in duration \"{orig}\""));
        }
        let (unit, rest) = s.split_at(u);
        s = rest;
        let nanos: u128 = match unit {
            "ns" => 1,
            "us" | "µs" | "μs" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => {
                return Err(format!(
                    "time: unknown unit \"{unit}\" in duration \"{orig}\""
                ));
            }
        };
        let whole: u128 = if int.is_empty() {
            0
        } else {
            int.parse().map_err(|_| invalid())?
        };
        // The fraction's digits past what a nanosecond resolves change nothing: 18 of them
        // resolve below a nanosecond of an hour, and keep `part * nanos` below 2^128.
        let mut part = 0u128;
        let mut scale = 1u128;
        for c in frac.chars().take(18) {
            part = part * 10 + u128::from(c.to_digit(10).unwrap_or(0));
            scale *= 10;
        }
        total = whole
            .checked_mul(nanos)
            .and_then(|w| w.checked_add(part * nanos / scale))
            .and_then(|v| total.checked_add(v))
            .filter(|t| *t <= i64::MAX as u128)
            .ok_or_else(invalid)?;
    }
    if neg {
        return Ok(Duration::ZERO);
    }
    Ok(Duration::from_nanos(
        u64::try_from(total).map_err(|_| invalid())?,
    ))
}

/// An account as geth's tracer prints it: `balance` (a quantity), `code`, `codeHash`, `nonce`
/// (a JSON number), `storage`, each left out when absent, zero or empty.
fn account_json(a: &TracedAccount) -> Value {
    let mut m = Map::new();
    if let Some(b) = a.balance {
        m.insert("balance".into(), format!("{b:#x}").into());
    }
    if let Some(c) = &a.code {
        m.insert("code".into(), c.to_string().into());
    }
    if let Some(h) = a.code_hash {
        m.insert("codeHash".into(), h.to_string().into());
    }
    if a.nonce != 0 {
        m.insert("nonce".into(), a.nonce.into());
    }
    if !a.storage.is_empty() {
        let s: Map<String, Value> = a
            .storage
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string().into()))
            .collect();
        m.insert("storage".into(), s.into());
    }
    m.into()
}

fn accounts_json(
    accounts: &std::collections::BTreeMap<alloy_primitives::Address, TracedAccount>,
) -> Value {
    accounts
        .iter()
        .map(|(a, t)| (lightprov_types::hex::encode(a.as_slice()), account_json(t)))
        .collect::<Map<String, Value>>()
        .into()
}

/// The answer as geth shapes it: the accounts by address, or with `diffMode` `{post, pre}`.
pub fn trace_json(t: &PrestateTrace) -> Value {
    match &t.post {
        None => accounts_json(&t.pre),
        Some(post) => {
            let mut m = Map::new();
            m.insert("post".into(), accounts_json(post));
            m.insert("pre".into(), accounts_json(&t.pre));
            m.into()
        }
    }
}

/// `debug_traceCall`.
pub fn trace_call(p: &Params<'_>, node: &Node) -> RpcResult<Value> {
    let a = args(p, 3)?;
    let req = calls::request(arg(&a, 0, "transaction")?)?;
    let block: Option<BlockId> = opt_arg(&a, 1, "block")?;
    if block == Some(BlockId::Number(BlockNumberOrTag::Pending)) {
        return Err(failed("tracing on top of pending is not supported"));
    }
    let config = config(a.get(2))?;
    let chain = read(node)?;
    let block = resolve(&chain, block)?;
    let deadline = Instant::now().checked_add(config.timeout);
    let stop = || deadline.is_some_and(|d| Instant::now() >= d);
    let trace = calls::answer(&chain, block, |state, cap| {
        lightprov_evm::prestate_trace(state, &req, cap, &config.prestate, &stop)
    })?;
    Ok(trace_json(&trace.map_err(failed)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_durations_parse_as_go_parses_them() {
        let ok = |s: &str| go_duration(s).unwrap();
        assert_eq!(ok("5s"), Duration::from_secs(5));
        assert_eq!(ok("1m30s"), Duration::from_secs(90));
        assert_eq!(ok("1.5h"), Duration::from_secs(5400));
        assert_eq!(ok("300ms"), Duration::from_millis(300));
        assert_eq!(ok("2µs"), Duration::from_micros(2));
        assert_eq!(ok(".5s"), Duration::from_millis(500));
        assert_eq!(ok("0"), Duration::ZERO);
        assert_eq!(ok("-3s"), Duration::ZERO);
        assert_eq!(ok("+1ns"), Duration::from_nanos(1));
        // A long fraction of a large unit: no overflow, the digits past a nanosecond dropped.
        assert_eq!(
            ok("1.999999999999999999999999999999999999h"),
            Duration::from_nanos(7_199_999_999_999)
        );
        assert_eq!(
            go_duration("abc").unwrap_err(),
            "time: invalid duration \"abc\""
        );
        assert_eq!(go_duration("").unwrap_err(), "time: invalid duration \"\"");
        assert_eq!(
            go_duration(".s").unwrap_err(),
            "time: invalid duration \".s\""
        );
        assert_eq!(
            go_duration("1").unwrap_err(),
            "time: missing unit in duration \"1\""
        );
        assert_eq!(
            go_duration("1d").unwrap_err(),
            "time: unknown unit \"d\" in duration \"1d\""
        );
        assert_eq!(
            go_duration("9999999999h").unwrap_err(),
            "time: invalid duration \"9999999999h\""
        );
    }
}
