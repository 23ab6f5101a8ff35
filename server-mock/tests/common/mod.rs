//! What the node's integration tests share.
#![allow(clippy::unwrap_used, dead_code)]

/// One JSON-RPC call: `Ok(result)` or `Err(error object)`.
pub(crate) fn rpc(
    m: &jsonrpsee::RpcModule<std::sync::Arc<lightprov_node::rpc::Node>>,
    method: &str,
    params: serde_json::Value,
) -> Result<serde_json::Value, serde_json::Value> {
    let body = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let (resp, _) = rt
        .block_on(m.raw_json_request(&body.to_string(), 1))
        .unwrap();
    let v: serde_json::Value = serde_json::from_str(resp.get()).unwrap();
    match v.get("result") {
        Some(r) => Ok(r.clone()),
        None => Err(v["error"].clone()),
    }
}
