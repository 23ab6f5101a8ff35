//! The HTTP front of the JSON-RPC server: it owns the sockets and the limits, and hands each
//! checked request to jsonrpsee, which answers the calls.
//!
//! jsonrpsee's own accept loop counts requests in flight, not sockets, and gives hyper no timer:
//! a client that sends one request and then idles, or dribbles the headers of its second one,
//! keeps its socket forever. Here:
//!
//! - at most `max_connections` sockets are open at once; the next one gets an HTTP 503 with a
//!   JSON-RPC error and is closed;
//! - a connection must deliver a complete request head within `idle_timeout` of opening or of its
//!   previous answer (hyper's header read timeout), else it is closed;
//! - from its head on, a request — body and call — must be answered within `request_timeout`,
//!   else it gets a JSON-RPC error and the connection is closed;
//! - a client that stops reading its answer for `request_timeout` is disconnected;
//! - bodies over `max_request_bytes` are refused as soon as they are known to be (by their
//!   `Content-Length` or while they arrive), and batches over `max_batch` calls before any call
//!   runs.
//!
//! The JSON-RPC envelope (`jsonrpc`, `method`, `id`, `params`) is checked here too, so that
//! every refusal names its problem: jsonrpsee's answers to those are a bare "Parse error" or
//! "Invalid request". [`triage`] runs that check on its own, without sockets — what the front
//! does with a body once it is in — for tests and the fuzz target; [`merge_batch`] builds a
//! batch's answer from jsonrpsee's and the refused entries'.
//!
//! `GET`s under [`REST_PREFIXES`] (`/eth/`, `/lightprov/v1/`) go to the node's [`Rest`] handler
//! (the beacon API of `--consensus sync-committee`) under the same connection and time limits,
//! or are answered 501 when the node runs none.

use std::{
    borrow::Cow,
    collections::HashSet,
    convert::Infallible,
    fmt,
    future::Future,
    io,
    pin::Pin,
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
    task::{Context, Poll},
    time::Duration,
};

use http_body_util::{BodyExt, Full};
use hyper::{
    Method, Request, Response, StatusCode,
    body::{Bytes, Incoming},
    header::{self, HeaderValue},
    server::conn::http1,
};
use hyper_util::rt::{TokioIo, TokioTimer};
use jsonrpsee::server::{BatchRequestConfig, HttpBody, Methods, Server, ServerConfig, StopHandle};
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use tokio::{
    io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf},
    net::{TcpListener, TcpStream},
    sync::Semaphore,
    time::{Instant, Sleep},
};
use tower_service::Service;

/// `-32005`: a limit of the node was exceeded (as for `lightprov_getHistory`'s range limit).
const LIMIT_EXCEEDED: i32 = -32005;
/// jsonrpsee's code for a request over the size limit.
const TOO_BIG_REQUEST: i32 = -32007;
/// jsonrpsee's code for a batch over the length limit.
const TOO_BIG_BATCH: i32 = -32010;
const PARSE_ERROR: i32 = -32700;
const INVALID_REQUEST: i32 = -32600;
const METHOD_NOT_FOUND: i32 = -32601;
const INVALID_PARAMS: i32 = -32602;

/// The limits the front enforces (flags of `lightprov-node`).
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// The largest request body, in bytes (`--max-request-bytes`).
    pub max_request_bytes: u32,
    /// The largest answer, in bytes (`--max-response-bytes`; enforced by jsonrpsee).
    pub max_response_bytes: u32,
    /// Connections open at once (`--max-connections`).
    pub max_connections: u32,
    /// Calls in one batch (`--max-batch`).
    pub max_batch: u32,
    /// From a request's head on, the time its body may take to arrive and its call to be
    /// answered; also how long a client may leave its answer unread (`--request-timeout`).
    pub request_timeout: Duration,
    /// The time a connection has to send a complete request head (`--idle-timeout`).
    pub idle_timeout: Duration,
}

/// GET requests answered beside JSON-RPC (the beacon API of `--consensus sync-committee`):
/// paths under [`REST_PREFIXES`]. Handlers are synchronous; the front runs them on the
/// blocking pool within the request timeout, as it does JSON-RPC calls.
pub trait Rest: Send + Sync + 'static {
    /// Answers `GET path?query` with the request's `Accept` header.
    fn get(&self, path: &str, query: Option<&str>, accept: Option<&str>) -> RestAnswer;
}

/// The paths a [`Rest`] handler answers; without one, GETs there get HTTP 501 saying how to
/// enable it.
pub const REST_PREFIXES: [&str; 2] = ["/eth/", "/lightprov/v1/"];

/// A [`Rest`] answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestAnswer {
    /// HTTP status.
    pub status: u16,
    /// Headers (`content-type` among them).
    pub headers: Vec<(&'static str, String)>,
    /// Body.
    pub body: Vec<u8>,
}

impl RestAnswer {
    /// A JSON answer.
    pub fn json(status: u16, v: &serde_json::Value) -> Self {
        Self {
            status,
            headers: vec![("content-type", "application/json; charset=utf-8".to_owned())],
            body: v.to_string().into_bytes(),
        }
    }

    /// The body as JSON (tests).
    pub fn json_body(&self) -> Option<serde_json::Value> {
        serde_json::from_slice(&self.body).ok()
    }

    fn response(self) -> Response<HttpBody> {
        let mut r = Response::new(HttpBody::from(self.body));
        *r.status_mut() = StatusCode::from_u16(self.status).unwrap_or(StatusCode::OK);
        for (name, value) in self.headers {
            if let Ok(v) = HeaderValue::from_str(&value) {
                r.headers_mut().insert(name, v);
            }
        }
        r
    }
}

/// What every connection shares.
struct Shared {
    limits: Limits,
    methods: HashSet<&'static str>,
    /// The GET API, if the node serves one.
    rest: Option<Arc<dyn Rest>>,
    /// Expensive calls (or batches with one) being answered.
    calls: Arc<Semaphore>,
    /// Every call being answered, `--max-connections` at most. A call keeps its permit until it
    /// ends, even when its client left or timed out (a handler cannot be interrupted), so a
    /// client that disconnects and reconnects cannot pile up calls beyond the limit.
    work: Arc<Semaphore>,
    /// Held shared while a request's calls run (a batch's all together); whoever changes what
    /// they read (the block producer) holds it exclusively.
    gate: Gate,
}

/// What a request holds shared while its calls run, and the block producer exclusively: a batch
/// reads one chain, not a chain that grows between its calls. The lock prefers its writer (a
/// waiting producer holds up the requests that come after it), so requests in flight delay a
/// block by at most the longest of them, and do not starve it.
pub type Gate = Arc<std::sync::RwLock<()>>;

/// Expensive calls (`rpc::is_expensive`, or batches with one) answered at once: twice the
/// cores, at least 4. The others wait, within their request timeout; this bounds the CPU and
/// memory that answers being built take. Other calls do not wait for them.
fn calls_in_flight() -> usize {
    std::thread::available_parallelism().map_or(4, |n| (2 * n.get()).max(4))
}

/// Serves `methods` (and `rest`'s GETs) on `listener` under `limits` until `stop` fires, each
/// request's calls under `gate` held shared; returns once every connection is closed.
pub async fn serve(
    listener: TcpListener,
    methods: impl Into<Methods>,
    rest: Option<Arc<dyn Rest>>,
    limits: Limits,
    gate: Gate,
    stop: StopHandle,
) {
    let methods: Methods = methods.into();
    let shared = Arc::new(Shared {
        gate,
        limits,
        methods: methods.method_names().collect(),
        rest,
        calls: Arc::new(Semaphore::new(calls_in_flight())),
        work: Arc::new(Semaphore::new(limits.max_connections as usize)),
    });
    let config = ServerConfig::builder()
        .max_request_body_size(limits.max_request_bytes)
        .max_response_body_size(limits.max_response_bytes)
        // jsonrpsee's count of requests in flight would answer in plain text. The front bounds
        // them: one per connection, expensive ones by `calls`.
        .max_connections(1 << 24)
        .set_batch_request_config(BatchRequestConfig::Limit(limits.max_batch))
        .http_only()
        .build();
    let rpc = Server::builder().set_config(config).to_service_builder();
    let slots = Arc::new(Semaphore::new(limits.max_connections as usize));
    // Refusals in flight (each lives at most REFUSAL_TIME); past that, sockets are just closed.
    let refusals = Arc::new(Semaphore::new(limits.max_connections as usize));
    let mut accept_errors: u64 = 0;
    // The connections, reaped as they end, and awaited at shutdown.
    let mut connections = tokio::task::JoinSet::new();
    loop {
        let accepted = tokio::select! {
            r = listener.accept() => r,
            Some(_) = connections.join_next(), if !connections.is_empty() => continue,
            () = stop.clone().shutdown() => break,
        };
        let socket = match accepted {
            Ok((socket, _)) => socket,
            Err(e) => {
                // Out of file descriptors, typically: back off instead of spinning.
                accept_errors += 1;
                if accept_errors.is_power_of_two() {
                    tracing::warn!("accepting a connection failed ({accept_errors} times): {e}");
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        if let Err(e) = socket.set_nodelay(true) {
            tracing::debug!("TCP_NODELAY: {e}");
        }
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            if let Ok(permit) = refusals.clone().try_acquire_owned() {
                let max = limits.max_connections;
                tokio::spawn(async move {
                    refuse(socket, max).await;
                    drop(permit);
                });
            }
            continue;
        };
        let service = rpc.clone().build(methods.clone(), stop.clone());
        let shared = shared.clone();
        let stop = stop.clone();
        connections.spawn(async move {
            connection(socket, service, shared, stop).await;
            drop(slot);
        });
    }
    while connections.join_next().await.is_some() {}
}

/// What jsonrpsee's service is to the front.
trait Rpc:
    Service<
        Request<Full<Bytes>>,
        Response = Response<HttpBody>,
        Error = jsonrpsee::core::BoxError,
        Future: Send,
    > + Clone
    + Send
    + 'static
{
}

impl<S> Rpc for S where
    S: Service<
            Request<Full<Bytes>>,
            Response = Response<HttpBody>,
            Error = jsonrpsee::core::BoxError,
            Future: Send,
        > + Clone
        + Send
        + 'static
{
}

async fn connection(socket: TcpStream, rpc: impl Rpc, shared: Arc<Shared>, stop: StopHandle) {
    let limits = shared.limits;
    let io = TokioIo::new(WriteDeadline::new(socket, limits.request_timeout));
    let service = hyper::service::service_fn(move |req| {
        let front = Front {
            rpc: rpc.clone(),
            shared: shared.clone(),
        };
        async move { Ok::<_, Infallible>(front.handle(req).await) }
    });
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.idle_timeout)
        .keep_alive(true)
        .max_buf_size(64 * 1024);
    let conn = builder.serve_connection(io, service);
    tokio::pin!(conn);
    let result = tokio::select! {
        r = conn.as_mut() => r,
        () = stop.shutdown() => {
            conn.as_mut().graceful_shutdown();
            conn.await
        }
    };
    if let Err(e) = result {
        tracing::debug!("connection closed: {e}");
    }
}

/// How long a refused connection may take to be told so.
const REFUSAL_TIME: Duration = Duration::from_millis(250);

/// Tells a connection over the limit so, with an HTTP 503 and a JSON-RPC error, and closes it.
async fn refuse(mut socket: TcpStream, max: u32) {
    let body = error_json(
        "null",
        LIMIT_EXCEEDED,
        &format!(
            "limit exceeded: too many connections, at most {max} at once (--max-connections); try again later"
        ),
    );
    let response = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: {}\r\nretry-after: 1\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = tokio::time::timeout(REFUSAL_TIME, async {
        // Read what the client sent first (briefly): closing on unread bytes resets the
        // connection, and the client might lose the answer.
        let mut buf = [0u8; 4096];
        let _ = tokio::time::timeout(Duration::from_millis(100), socket.read(&mut buf)).await;
        socket.write_all(response.as_bytes()).await?;
        socket.shutdown().await?;
        while socket.read(&mut buf).await? > 0 {}
        Ok::<_, io::Error>(())
    })
    .await;
}

/// One request's handling.
struct Front<S> {
    rpc: S,
    shared: Arc<Shared>,
}

/// A refusal: the HTTP status and the JSON-RPC error answered.
#[derive(Debug)]
struct Refusal {
    status: StatusCode,
    code: i32,
    message: String,
    /// The request body was not read to its end: the connection cannot carry another request.
    close: bool,
}

impl Refusal {
    fn new(status: StatusCode, code: i32, message: impl Into<String>) -> Self {
        Self {
            status,
            code,
            message: message.into(),
            close: false,
        }
    }

    fn closing(mut self) -> Self {
        self.close = true;
        self
    }

    /// The JSON-RPC error answered.
    fn answer(&self) -> String {
        error_json("null", self.code, &self.message)
    }

    fn response(self) -> Response<HttpBody> {
        let mut r = json_response(self.status, self.answer());
        if self.close {
            r.headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
        }
        r
    }
}

impl<S: Rpc> Front<S> {
    /// Answers one request within the request timeout. `received` counts the body bytes in so
    /// far (for the timeout's message), `u64::MAX` once the body is complete.
    async fn handle(self, req: Request<Incoming>) -> Response<HttpBody> {
        let limits = self.shared.limits;
        let received = AtomicU64::new(0);
        let announced = content_length(&req);
        let deadline = Instant::now() + limits.request_timeout;
        match tokio::time::timeout_at(deadline, self.answer(req, &received)).await {
            Ok(Ok(r)) => r,
            Ok(Err(refusal)) => refusal.response(),
            Err(_) => {
                let got = received.load(Ordering::Relaxed);
                let what = match announced {
                    _ if got == u64::MAX => "no answer in time".to_owned(),
                    Some(n) => {
                        format!("the body did not arrive in time ({got} of {n} bytes received)")
                    }
                    None => format!("the body did not arrive in time ({got} bytes received)"),
                };
                Refusal::new(
                    StatusCode::REQUEST_TIMEOUT,
                    LIMIT_EXCEEDED,
                    format!(
                        "limit exceeded: request timed out after {} (--request-timeout): {what}",
                        seconds(limits.request_timeout)
                    ),
                )
                .closing()
                .response()
            }
        }
    }

    /// Reads and checks the request, then has jsonrpsee answer it.
    async fn answer(
        self,
        req: Request<Incoming>,
        received: &AtomicU64,
    ) -> Result<Response<HttpBody>, Refusal> {
        let limits = self.shared.limits;
        let max = u64::from(limits.max_request_bytes);
        let too_big = |n: Option<u64>| {
            let size = match n {
                Some(n) => format!("{n} bytes"),
                None => format!("the body runs past {max} bytes"),
            };
            Refusal::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                TOO_BIG_REQUEST,
                format!("request too big: {size}, at most {max} (--max-request-bytes)"),
            )
        };
        if req.method() == Method::GET {
            let path = req.uri().path();
            if REST_PREFIXES.iter().any(|p| path.starts_with(p)) {
                return Ok(self.rest(&req).await);
            }
        }
        let announced = content_length(&req);
        let content_type = req.headers().get(header::CONTENT_TYPE);
        let early = if req.method() != Method::POST {
            Some(Refusal::new(
                StatusCode::METHOD_NOT_ALLOWED,
                INVALID_REQUEST,
                format!(
                    "invalid request: HTTP method {}; JSON-RPC requests are POSTed",
                    req.method()
                ),
            ))
        } else if !jsonrpsee::server::http::is_json(content_type) {
            let got = content_type
                .map(|v| shorten(&String::from_utf8_lossy(v.as_bytes()), 64))
                .unwrap_or_else(|| "none".into());
            Some(Refusal::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                INVALID_REQUEST,
                format!("invalid request: Content-Type must be application/json, got {got}"),
            ))
        } else {
            announced.filter(|&n| n > max).map(|n| too_big(Some(n)))
        };
        let (parts, mut body) = req.into_parts();
        let cap = drain_cap(max);
        if let Some(refusal) = early {
            // Read the body before answering (up to a cap): a client still sending it would
            // otherwise see the connection reset and might lose the answer. Not when the client
            // waits for `100 Continue`: reading would invite the body; it is refused unsent.
            let expects = parts
                .headers
                .get(header::EXPECT)
                .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"100-continue"));
            let drained =
                !expects && announced.is_none_or(|n| n <= cap) && drain(&mut body, 0, cap).await;
            return Err(if drained { refusal } else { refusal.closing() });
        }
        let mut bytes = Vec::new();
        while let Some(frame) = body.frame().await {
            let Ok(frame) = frame else {
                return Err(Refusal::new(
                    StatusCode::BAD_REQUEST,
                    PARSE_ERROR,
                    "parse error: the body could not be read (malformed HTTP body)",
                )
                .closing());
            };
            if let Ok(data) = frame.into_data() {
                let seen = bytes.len() as u64 + data.len() as u64;
                if seen > max {
                    drop(bytes);
                    let refusal = too_big(None);
                    let drained = drain(&mut body, seen, cap).await;
                    return Err(if drained { refusal } else { refusal.closing() });
                }
                bytes.extend_from_slice(&data);
                received.store(bytes.len() as u64, Ordering::Relaxed);
            }
        }
        // The body is in: from here on a timeout is the call's.
        received.store(u64::MAX, Ordering::Relaxed);
        let (forward, rejected, batch, expensive) =
            match triage_owned(bytes, &self.shared.methods, limits.max_batch) {
                Triage::Forward { body, expensive } => (Some(body), vec![], false, expensive),
                Triage::Batch {
                    forward,
                    refused,
                    expensive,
                } => (forward, refused, true, expensive),
                Triage::Refused { status, answer } => return Ok(json_response(status, answer)),
                Triage::Notification => (None, vec![], false, false),
            };
        let mut answer = match forward {
            Some(body) => {
                let req = Request::from_parts(parts, Full::new(Bytes::from(body)));
                // The handlers are synchronous: they run on the blocking pool, so that no call
                // or batch holds up the sockets; at most `--max-connections` at once, expensive
                // ones at most `calls_in_flight()`. Both permits wait within the request
                // timeout and are held until the call ends.
                let work = self.shared.work.clone().acquire_owned().await;
                let permit = if expensive {
                    Some(self.shared.calls.clone().acquire_owned().await)
                } else {
                    None
                };
                let runtime = tokio::runtime::Handle::current();
                let mut rpc = self.rpc.clone();
                let gate = self.shared.gate.clone();
                let (done, answered) = tokio::sync::oneshot::channel();
                tokio::task::spawn_blocking(move || {
                    let _held = (work, permit);
                    // The client left, or its request timed out, while the call queued.
                    if done.is_closed() {
                        return;
                    }
                    // The gate guards no data: a poisoned one is as good.
                    let _open = gate
                        .read()
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                    let _ = done.send(runtime.block_on(rpc.call(req)));
                });
                let answer = answered
                    .await
                    .map_err(|_| "the call ended without an answer".into())
                    .and_then(|r| r);
                match answer {
                    Ok(r) => r,
                    Err(e) => {
                        tracing::error!("JSON-RPC service failed: {e}");
                        return Err(Refusal::new(
                            StatusCode::INTERNAL_SERVER_ERROR,
                            -32603,
                            "internal error: the JSON-RPC service failed",
                        ));
                    }
                }
            }
            None => json_response(StatusCode::OK, String::new()),
        };
        if batch && !rejected.is_empty() {
            let body = std::mem::take(answer.body_mut());
            let answered = body
                .collect()
                .await
                .map(|c| c.to_bytes())
                .unwrap_or_default();
            let merged = merge_batch(&answered, &rejected);
            answer = json_response(StatusCode::OK, merged);
        }
        Ok(answer)
    }
}

impl<S: Rpc> Front<S> {
    /// Answers a GET of the REST API on the blocking pool (holding a `work` permit, as calls
    /// do), or says it is not enabled.
    async fn rest(&self, req: &Request<Incoming>) -> Response<HttpBody> {
        let Some(rest) = self.shared.rest.clone() else {
            return RestAnswer::json(
                501,
                &serde_json::json!({
                    "code": 501,
                    "message": "the beacon API is not enabled: start lightprov-node with --consensus sync-committee",
                }),
            )
            .response();
        };
        let path = req.uri().path().to_owned();
        let query = req.uri().query().map(str::to_owned);
        let accept = req
            .headers()
            .get(header::ACCEPT)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let work = self.shared.work.clone().acquire_owned().await;
        let answer = tokio::task::spawn_blocking(move || {
            let _held = work;
            rest.get(&path, query.as_deref(), accept.as_deref())
        })
        .await;
        match answer {
            Ok(a) => a.response(),
            Err(e) => {
                tracing::error!("REST handler failed: {e}");
                RestAnswer::json(
                    500,
                    &serde_json::json!({ "code": 500, "message": "internal error: the handler failed" }),
                )
                .response()
            }
        }
    }
}

/// How much of a refused body is read (and dropped) before answering: 16 × the request limit,
/// at least 16 MiB. Past it the connection is closed.
fn drain_cap(max_request: u64) -> u64 {
    (16 * max_request).max(16 << 20)
}

/// Reads the rest of a body, dropping it; `false` if it errs or runs past `cap` bytes in all.
async fn drain(body: &mut Incoming, mut seen: u64, cap: u64) -> bool {
    while let Some(frame) = body.frame().await {
        let Ok(frame) = frame else { return false };
        if let Ok(data) = frame.into_data() {
            seen += data.len() as u64;
            if seen > cap {
                return false;
            }
        }
    }
    true
}

fn content_length<B>(req: &Request<B>) -> Option<u64> {
    req.headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|s| s.trim().parse().ok())
}

fn json_response(status: StatusCode, body: String) -> Response<HttpBody> {
    let mut r = Response::new(HttpBody::from(body));
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json; charset=utf-8"),
    );
    r
}

/// A JSON-RPC error answer; `id` is raw JSON (a string, a number or `null`).
fn error_json(id: &str, code: i32, message: &str) -> String {
    let message = serde_json::Value::String(message.to_owned());
    format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":{code},"message":{message}}}}}"#)
}

/// `2 s`, `500 ms`.
fn seconds(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{} ms", d.as_millis())
    }
}

/// At most `max` characters of `s`, with `…` if cut.
fn shorten(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}… ({} bytes)", s.get(..i).unwrap_or_default(), s.len()),
        None => s.to_owned(),
    }
}

/// The outcome of checking a body.
#[derive(Debug)]
enum Checked {
    /// A single call, fine as far as the envelope goes: the body from `start` on.
    Forward { start: usize, expensive: bool },
    /// A single request refused: its error answer.
    Rejected(String),
    /// A single notification: answered with an empty body.
    Notification,
    /// A batch: the calls to forward (as a batch body), and the error answers of the others.
    Batch {
        valid: Option<Vec<u8>>,
        rejected: Vec<String>,
        expensive: bool,
    },
}

/// What the front does with a request body once it is in, before any call runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Triage {
    /// A single call whose envelope is fine: `body` goes to jsonrpsee, and jsonrpsee's answer
    /// is the front's.
    Forward {
        /// The exact bytes jsonrpsee gets: the request without its leading whitespace.
        body: Vec<u8>,
        /// A call of a method `rpc::is_expensive` names: it waits for one of a few slots to run.
        expensive: bool,
    },
    /// Refused: no call runs, and the front answers `answer`, a JSON-RPC error object, with
    /// HTTP `status` (`400 Bad Request` for a body that is not JSON, else `200 OK`).
    Refused {
        /// The HTTP status of the answer.
        status: StatusCode,
        /// The answer's body.
        answer: String,
    },
    /// A single notification (no `id`): nothing runs, and the answer is empty.
    Notification,
    /// A batch. `forward` (the entries whose envelope is fine, as a batch body) goes to
    /// jsonrpsee; the front answers jsonrpsee's answer as it is when `refused` is empty, else
    /// [`merge_batch`] of it and `refused` (jsonrpsee's answer being empty when there was
    /// nothing to forward). Notifications get no answer, and are not forwarded.
    Batch {
        /// The calls to forward, as a batch body; `None` if there are none.
        forward: Option<Vec<u8>>,
        /// The error answers of the entries refused, in order.
        refused: Vec<String>,
        /// One of the calls forwarded is expensive.
        expensive: bool,
    },
}

/// What the front does with `body` once it is in — UTF-8, JSON, the envelope of each request,
/// the batch length — for a node serving `methods` with batches of at most `max_batch` calls.
/// The front's size limit (`--max-request-bytes`) applies while a body arrives, before this.
pub fn triage(body: &[u8], methods: &HashSet<&str>, max_batch: u32) -> Triage {
    triage_owned(body.to_vec(), methods, max_batch)
}

/// [`triage`], taking the body (a forwarded body is the same buffer, not a copy).
fn triage_owned(mut body: Vec<u8>, methods: &HashSet<&str>, max_batch: u32) -> Triage {
    match check(&body, methods, max_batch) {
        Ok(Checked::Forward { start, expensive }) => {
            body.drain(..start);
            Triage::Forward { body, expensive }
        }
        Ok(Checked::Rejected(answer)) => Triage::Refused {
            status: StatusCode::OK,
            answer,
        },
        Ok(Checked::Notification) => Triage::Notification,
        Ok(Checked::Batch {
            valid,
            rejected,
            expensive,
        }) => Triage::Batch {
            forward: valid,
            refused: rejected,
            expensive,
        },
        Err(refusal) => Triage::Refused {
            status: refusal.status,
            answer: refusal.answer(),
        },
    }
}

/// Checks the body: UTF-8, JSON, and each request's envelope.
fn check(body: &[u8], methods: &HashSet<&str>, max_batch: u32) -> Result<Checked, Refusal> {
    let parse_error = |m: String| {
        Refusal::new(
            StatusCode::BAD_REQUEST,
            PARSE_ERROR,
            format!("parse error: {m}"),
        )
    };
    let text = std::str::from_utf8(body).map_err(|e| {
        parse_error(format!(
            "the body is not UTF-8 (invalid byte at offset {})",
            e.valid_up_to()
        ))
    })?;
    // JSON's whitespace only (RFC 8259): a body of other spaces (a form feed, U+00A0) is not
    // empty but not JSON either, and serde_json says where.
    let trimmed = text.trim_start_matches([' ', '\t', '\n', '\r']);
    if trimmed.is_empty() {
        return Err(parse_error("empty body".into()));
    }
    let start = text.len() - trimmed.len();
    let value: &RawValue = serde_json::from_str(text).map_err(|e| parse_error(e.to_string()))?;
    if !value.get().starts_with('[') {
        return Ok(match envelope(value, methods) {
            Envelope::Forward { expensive } => Checked::Forward { start, expensive },
            Envelope::Notification => Checked::Notification,
            Envelope::Rejected(e) => Checked::Rejected(e),
        });
    }
    let entries: Vec<&RawValue> =
        serde_json::from_str(text).map_err(|e| parse_error(e.to_string()))?;
    if entries.is_empty() {
        return Err(Refusal::new(
            StatusCode::OK,
            INVALID_REQUEST,
            "invalid request: empty batch",
        ));
    }
    if entries.len() > max_batch as usize {
        return Err(Refusal::new(
            StatusCode::OK,
            TOO_BIG_BATCH,
            format!(
                "batch too large: {} calls, at most {max_batch} per batch (--max-batch)",
                entries.len()
            ),
        ));
    }
    let mut valid = Vec::with_capacity(body.len());
    let mut rejected = vec![];
    let mut expensive = false;
    for entry in entries {
        match envelope(entry, methods) {
            Envelope::Forward { expensive: e } => {
                expensive |= e;
                valid.push(if valid.is_empty() { b'[' } else { b',' });
                valid.extend_from_slice(entry.get().as_bytes());
            }
            Envelope::Notification => {}
            Envelope::Rejected(e) => rejected.push(e),
        }
    }
    Ok(Checked::Batch {
        valid: (!valid.is_empty()).then(|| {
            valid.push(b']');
            valid
        }),
        rejected,
        expensive,
    })
}

/// A batch's answer when some of its entries were refused ([`Triage::Batch`]): jsonrpsee's
/// answer to the calls forwarded (an array, an error object, or empty when none was), with the
/// refused entries' answers added — one array.
pub fn merge_batch(answered: &[u8], rejected: &[String]) -> String {
    let answered = String::from_utf8_lossy(answered);
    let answered = answered.trim();
    let mut parts: Vec<&str> = vec![];
    if let Some(inner) = answered.strip_prefix('[').and_then(|a| a.strip_suffix(']')) {
        if !inner.trim().is_empty() {
            parts.push(inner);
        }
    } else if !answered.is_empty() {
        parts.push(answered);
    }
    parts.extend(rejected.iter().map(String::as_str));
    format!("[{}]", parts.join(","))
}

#[derive(Debug)]
enum Envelope {
    /// A call: jsonrpsee answers it.
    Forward { expensive: bool },
    /// A notification (no `id`): nothing to answer, and jsonrpsee runs none.
    Notification,
    /// Refused: its error answer.
    Rejected(String),
}

/// The kind of a JSON value, for messages.
fn kind(v: &RawValue) -> &'static str {
    match v.get().as_bytes().first() {
        Some(b'{') => "an object",
        Some(b'[') => "an array",
        Some(b'"') => "a string",
        Some(b't' | b'f') => "a boolean",
        Some(b'n') => "null",
        _ => "a number",
    }
}

/// An object's members, in order (duplicates kept).
struct Members<'a>(Vec<(String, &'a RawValue)>);

impl<'de> Deserialize<'de> for Members<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Members<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON-RPC request object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut members = vec![];
                while let Some(k) = map.next_key::<String>()? {
                    members.push((k, map.next_value::<&'de RawValue>()?));
                }
                Ok(Members(members))
            }
        }
        d.deserialize_map(V)
    }
}

/// Checks one request object: `jsonrpc` is "2.0", `method` a served method's name, `id` a
/// string, a non-negative integer or null, `params` an array or an object.
fn envelope(request: &RawValue, methods: &HashSet<&str>) -> Envelope {
    let reject =
        |id: &str, code: i32, message: String| Envelope::Rejected(error_json(id, code, &message));
    if !request.get().starts_with('{') {
        return reject(
            "null",
            INVALID_REQUEST,
            format!(
                "invalid request: expected a JSON-RPC request object, got {}",
                kind(request)
            ),
        );
    }
    let Ok(Members(members)) = serde_json::from_str::<Members<'_>>(request.get()) else {
        return reject(
            "null",
            INVALID_REQUEST,
            "invalid request: unreadable request object".into(),
        );
    };
    let mut seen = HashSet::new();
    for (k, _) in &members {
        if !seen.insert(k.as_str()) {
            return reject(
                "null",
                INVALID_REQUEST,
                format!("invalid request: \"{}\" appears twice", shorten(k, 32)),
            );
        }
    }
    let get = |name: &str| members.iter().find(|(k, _)| k == name).map(|(_, v)| *v);
    // The id first: every other error is answered with it.
    let id = match get("id") {
        None => None,
        Some(raw) => match serde_json::from_str::<jsonrpsee::types::Id<'_>>(raw.get()) {
            Ok(_) => Some(raw.get()),
            Err(_) => {
                return reject(
                    "null",
                    INVALID_REQUEST,
                    format!(
                        "invalid request: \"id\" must be a string, a non-negative integer or null, got {}",
                        kind(raw)
                    ),
                );
            }
        },
    };
    let answer_id = id.unwrap_or("null");
    match get("jsonrpc") {
        None => {
            return reject(
                answer_id,
                INVALID_REQUEST,
                "invalid request: no \"jsonrpc\": \"2.0\" member (only JSON-RPC 2.0 is served)"
                    .into(),
            );
        }
        Some(v) if v.get() != r#""2.0""# => {
            return reject(
                answer_id,
                INVALID_REQUEST,
                format!(
                    "invalid request: \"jsonrpc\" must be \"2.0\", got {}",
                    shorten(v.get(), 32)
                ),
            );
        }
        Some(_) => {}
    }
    let method = match get("method").map(|m| (m, serde_json::from_str::<Cow<'_, str>>(m.get()))) {
        None => {
            return reject(
                answer_id,
                INVALID_REQUEST,
                "invalid request: no \"method\"".into(),
            );
        }
        Some((m, Err(_))) => {
            return reject(
                answer_id,
                INVALID_REQUEST,
                format!(
                    "invalid request: \"method\" must be a string, got {}",
                    kind(m)
                ),
            );
        }
        Some((_, Ok(m))) => m,
    };
    if let Some(p) = get("params")
        && !matches!(p.get().as_bytes().first(), Some(b'[' | b'{' | b'n'))
    {
        return reject(
            answer_id,
            INVALID_PARAMS,
            format!(
                "invalid params: \"params\" must be an array (or an object), got {}",
                kind(p)
            ),
        );
    }
    if id.is_some() && !methods.contains(method.as_ref()) {
        return reject(
            answer_id,
            METHOD_NOT_FOUND,
            format!(
                "method not found: {} is not served by lightprov-node",
                shorten(&method, 64)
            ),
        );
    }
    if id.is_none() {
        return Envelope::Notification;
    }
    Envelope::Forward {
        expensive: crate::rpc::is_expensive(method.as_ref()),
    }
}

/// A socket whose writes fail once they have made no progress for `limit`: a client that stops
/// reading its answer is disconnected instead of holding the answer in memory.
struct WriteDeadline {
    inner: TcpStream,
    limit: Duration,
    stalled: Option<Pin<Box<Sleep>>>,
}

impl WriteDeadline {
    fn new(inner: TcpStream, limit: Duration) -> Self {
        Self {
            inner,
            limit,
            stalled: None,
        }
    }

    fn track<T>(&mut self, cx: &mut Context<'_>, r: Poll<io::Result<T>>) -> Poll<io::Result<T>> {
        if r.is_ready() {
            self.stalled = None;
            return r;
        }
        let limit = self.limit;
        let sleep = self
            .stalled
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
        match sleep.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the client stopped reading",
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl AsyncRead for WriteDeadline {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_read(cx, buf)
    }
}

impl AsyncWrite for WriteDeadline {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let r = Pin::new(&mut this.inner).poll_write(cx, buf);
        this.track(cx, r)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let r = Pin::new(&mut this.inner).poll_write_vectored(cx, bufs);
        this.track(cx, r)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let r = Pin::new(&mut this.inner).poll_flush(cx);
        this.track(cx, r)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let r = Pin::new(&mut this.inner).poll_shutdown(cx);
        this.track(cx, r)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;

    const MAX_BATCH: u32 = 3;

    fn methods() -> HashSet<&'static str> {
        ["eth_blockNumber", "eth_getProof"].into_iter().collect()
    }

    /// `check` as the front runs it, with batches of at most [`MAX_BATCH`].
    fn check(body: &[u8]) -> Result<Checked, Refusal> {
        super::check(body, &methods(), MAX_BATCH)
    }

    /// The error (code, message) of one answer.
    fn error(answer: &str) -> (i64, String) {
        let v: serde_json::Value = serde_json::from_str(answer).unwrap();
        let e = &v["error"];
        (
            e["code"].as_i64().unwrap(),
            e["message"].as_str().unwrap().to_owned(),
        )
    }

    fn refused(body: &[u8]) -> (i64, String) {
        match check(body) {
            Ok(Checked::Rejected(answer)) => error(&answer),
            Err(r) => (i64::from(r.code), r.message),
            other => panic!("not refused: {other:?}"),
        }
    }

    #[test]
    fn refusals_name_the_problem() {
        for (body, code, pattern) in [
            (&b""[..], -32700, "empty body"),
            (b"  \n", -32700, "empty body"),
            (b"{\"a\":", -32700, "EOF while parsing"),
            (
                b"{\"method\":\"\xff\"}",
                -32700,
                "not UTF-8 (invalid byte at offset 11)",
            ),
            (b"hello", -32700, "expected value"),
            (b"42", -32600, "got a number"),
            (b"[]", -32600, "empty batch"),
            (
                b"[1,2,3,4]",
                -32010,
                "4 calls, at most 3 per batch (--max-batch)",
            ),
            (
                b"{\"id\":1,\"method\":\"eth_blockNumber\"}",
                -32600,
                "\"jsonrpc\": \"2.0\"",
            ),
            (
                b"{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"m\"}",
                -32600,
                "must be \"2.0\"",
            ),
            (b"{\"jsonrpc\":\"2.0\",\"id\":1}", -32600, "no \"method\""),
            (
                b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":[]}",
                -32600,
                "\"method\" must be a string",
            ),
            (
                b"{\"jsonrpc\":\"2.0\",\"id\":[],\"method\":\"m\"}",
                -32600,
                "\"id\" must be",
            ),
            (
                b"{\"jsonrpc\":\"2.0\",\"id\":-1,\"method\":\"m\"}",
                -32600,
                "\"id\" must be",
            ),
            (
                b"{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":2,\"method\":\"m\"}",
                -32600,
                "\"id\" appears twice",
            ),
            (
                b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"eth_blockNumber\",\"params\":7}",
                -32602,
                "\"params\" must be an array",
            ),
            (
                b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"eth_nope\"}",
                -32601,
                "eth_nope is not served",
            ),
        ] {
            let (c, m) = refused(body);
            assert_eq!(c, code, "{}: {m}", String::from_utf8_lossy(body));
            assert!(
                m.contains(pattern),
                "{}: {m}",
                String::from_utf8_lossy(body)
            );
        }
    }

    /// Found by the `rpc` fuzz target: a body of one form feed was answered "empty body".
    #[test]
    fn only_json_whitespace_is_empty() {
        for body in [&b"\x0c"[..], b" \xc2\xa0", b"\xe2\x80\xa8\n", b"\x0b"] {
            let (code, m) = refused(body);
            assert_eq!(code, -32700, "{body:?}");
            assert!(
                m.contains("expected value at line 1 column"),
                "{body:?}: {m}"
            );
        }
        assert_eq!(refused(b" \t\r\n").1, "parse error: empty body");
        // Other spaces before a request are not cut: it is refused, not forwarded.
        assert_eq!(
            refused(b"\x0c{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"eth_blockNumber\"}").0,
            -32700
        );
    }

    #[test]
    fn answers_echo_the_id() {
        let Ok(Checked::Rejected(a)) = check(br#"{"jsonrpc":"2.0","id":"x7","method":"nope"}"#)
        else {
            panic!("not refused")
        };
        let v: serde_json::Value = serde_json::from_str(&a).unwrap();
        assert_eq!(v["id"], "x7");
    }

    #[test]
    fn calls_and_notifications_pass() {
        assert!(matches!(
            check(b"  {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"eth_blockNumber\",\"params\":[]}"),
            Ok(Checked::Forward {
                start: 2,
                expensive: false
            })
        ));
        assert!(matches!(
            check(b"{\"jsonrpc\":\"2.0\",\"method\":\"anything\"}"),
            Ok(Checked::Notification)
        ));
        let Ok(Checked::Batch {
            valid, rejected, ..
        }) = check(
            br#"[{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"},{"jsonrpc":"2.0","method":"x"},5]"#,
        ) else {
            panic!("not a batch")
        };
        assert_eq!(
            valid.as_deref(),
            Some(&br#"[{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}]"#[..])
        );
        assert_eq!(rejected.len(), 1);
    }

    #[test]
    fn triage_is_what_the_front_does() {
        let m = methods();
        let t = |body: &[u8]| triage(body, &m, MAX_BATCH);
        assert_eq!(
            t(b"\r\n {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"eth_getProof\"}"),
            Triage::Forward {
                body: b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"eth_getProof\"}".to_vec(),
                expensive: true
            }
        );
        assert_eq!(
            t(b"{\"jsonrpc\":\"2.0\",\"method\":\"eth_getProof\"}"),
            Triage::Notification
        );
        // A body that is not JSON: HTTP 400; a refused request: 200, with its id.
        let Triage::Refused { status, answer } = t(b"\xef\xbb\xbf{}") else {
            panic!("a BOM is not JSON")
        };
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(error(&answer).0, -32700);
        let Triage::Refused { status, answer } =
            t(br#"{"jsonrpc":"1.0","id":"a","method":"eth_blockNumber"}"#)
        else {
            panic!("JSON-RPC 1.0 is refused")
        };
        assert_eq!(status, StatusCode::OK);
        let v: serde_json::Value = serde_json::from_str(&answer).unwrap();
        assert_eq!(
            (&v["id"], error(&answer).0),
            (&serde_json::json!("a"), -32600)
        );
        assert_eq!(
            t(br#" [{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}, [], {"jsonrpc":"2.0","method":"x"}]"#),
            Triage::Batch {
                forward: Some(br#"[{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}]"#.to_vec()),
                refused: vec![error_json(
                    "null",
                    -32600,
                    "invalid request: expected a JSON-RPC request object, got an array"
                )],
                expensive: false,
            }
        );
        assert!(
            matches!(t(b"[1,2,3,4]"), Triage::Refused { status, .. } if status == StatusCode::OK)
        );
    }

    #[test]
    fn batch_answers_merge() {
        let e = error_json("2", -32601, "m");
        assert_eq!(
            merge_batch(b"[{\"a\":1}]", std::slice::from_ref(&e)),
            format!("[{{\"a\":1}},{e}]")
        );
        assert_eq!(merge_batch(b"", std::slice::from_ref(&e)), format!("[{e}]"));
        assert_eq!(
            merge_batch(b"[]", std::slice::from_ref(&e)),
            format!("[{e}]")
        );
        assert_eq!(
            merge_batch(b"{\"x\":1}", std::slice::from_ref(&e)),
            format!("[{{\"x\":1}},{e}]")
        );
    }

    #[test]
    fn long_inputs_are_cut_in_messages() {
        let name = "m".repeat(10_000);
        let body = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"{name}"}}"#);
        let (_, m) = refused(body.as_bytes());
        assert!(m.len() < 200, "{m}");
        assert!(m.contains("(10000 bytes)"), "{m}");
    }

    #[tokio::test]
    async fn a_client_that_stops_reading_is_disconnected() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        // The client connects and never reads.
        let _client = TcpStream::connect(addr).await.unwrap();
        let (server, _) = listener.accept().await.unwrap();
        let mut s = WriteDeadline::new(server, Duration::from_millis(300));
        let chunk = vec![0u8; 1 << 16];
        let started = std::time::Instant::now();
        let err = loop {
            match tokio::time::timeout(Duration::from_secs(10), s.write(&chunk)).await {
                Ok(Ok(_)) => {}
                Ok(Err(e)) => break e,
                Err(_) => panic!("a write hung past the deadline"),
            }
        };
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
        assert!(started.elapsed() < Duration::from_secs(10));
    }

    /// Echoes what it was asked.
    struct Echo;

    impl Rest for Echo {
        fn get(&self, path: &str, query: Option<&str>, accept: Option<&str>) -> RestAnswer {
            let mut a = RestAnswer::json(
                200,
                &serde_json::json!({ "path": path, "query": query, "accept": accept }),
            );
            a.headers.push(("eth-consensus-version", "fulu".to_owned()));
            a
        }
    }

    /// One request over a fresh connection: the whole answer, head and body.
    async fn raw(addr: std::net::SocketAddr, request: &str) -> String {
        let mut s = TcpStream::connect(addr).await.unwrap();
        s.write_all(request.as_bytes()).await.unwrap();
        let mut out = String::new();
        tokio::time::timeout(Duration::from_secs(10), s.read_to_string(&mut out))
            .await
            .unwrap()
            .unwrap();
        out
    }

    #[tokio::test]
    async fn gets_under_the_rest_prefixes_reach_the_handler_or_say_how_to_enable_it() {
        for rest in [Some(Arc::new(Echo) as Arc<dyn Rest>), None] {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let (stop, handle) = jsonrpsee::server::stop_channel();
            let limits = Limits {
                max_request_bytes: 1 << 16,
                max_response_bytes: 1 << 16,
                max_connections: 4,
                max_batch: MAX_BATCH,
                request_timeout: Duration::from_secs(10),
                idle_timeout: Duration::from_secs(10),
            };
            let server = tokio::spawn(serve(
                listener,
                jsonrpsee::RpcModule::new(()),
                rest.clone(),
                limits,
                Gate::default(),
                stop,
            ));
            let get = |path: &str| {
                format!(
                    "GET {path} HTTP/1.1\r\nhost: x\r\naccept: application/octet-stream\r\nconnection: close\r\n\r\n"
                )
            };
            let a = raw(
                addr,
                &get("/eth/v1/beacon/light_client/updates?start_period=1&count=2"),
            )
            .await;
            let b = raw(addr, &get("/lightprov/v1/beacon/status")).await;
            if rest.is_some() {
                assert!(a.starts_with("HTTP/1.1 200"), "{a}");
                assert!(a.contains("eth-consensus-version: fulu"), "{a}");
                assert!(
                    a.contains(r#""path":"/eth/v1/beacon/light_client/updates""#),
                    "{a}"
                );
                assert!(a.contains(r#""query":"start_period=1&count=2""#), "{a}");
                assert!(a.contains(r#""accept":"application/octet-stream""#), "{a}");
                assert!(b.starts_with("HTTP/1.1 200"), "{b}");
            } else {
                for r in [&a, &b] {
                    assert!(r.starts_with("HTTP/1.1 501"), "{r}");
                    assert!(r.contains("--consensus sync-committee"), "{r}");
                }
            }
            // Other GETs are JSON-RPC's refusal, as before.
            let c = raw(addr, &get("/")).await;
            assert!(c.starts_with("HTTP/1.1 405"), "{c}");
            assert!(c.contains("JSON-RPC requests are POSTed"), "{c}");
            handle.stop().unwrap();
            server.await.unwrap();
        }
    }
}
