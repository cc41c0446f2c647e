//! `pbmchess web`: the read-only web site (docs/web.md). Its own tokio
//! runtime, beside the blocking daemon (which it never touches), reading
//! the same SQLite file through read-only connections (`reader`); the
//! pages (`pages`, `feed`, `chart`) in their frame (`page`); what stands
//! in front of them (`guard`).
//!
//! HTTP is axum's router on hyper, served by our own accept loop so that
//! each connection is bounded: at most [`CONNECTIONS`] at once, its
//! request head read within [`HEAD_DEADLINE`], and the connection closed
//! after [`CONNECTION_LIFETIME`] (a slow or idle client cannot hold one).

mod chart;
mod feed;
mod form;
mod guard;
mod page;
mod pages;
mod reader;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::{get, post};
use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tower::ServiceExt;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::compression::CompressionLayer;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::timeout::RequestBodyTimeoutLayer;

use crate::app::{App, AppError};
use guard::{Limiter, Peer};
use reader::Reader;

/// Connections served at once; more wait in the listen queue.
const CONNECTIONS: usize = 1024;
/// The time a client has to send a request's head.
const HEAD_DEADLINE: Duration = Duration::from_secs(10);
/// The longest a connection is kept (keep-alive included).
const CONNECTION_LIFETIME: Duration = Duration::from_secs(60);
/// The largest request body taken (the pages take none; a form is small).
pub(crate) const BODY_BYTES: usize = 16 * 1024;

/// What every handler shares.
pub(crate) struct Site {
    reader: Arc<Reader>,
    limiter: Limiter,
    behind_proxy: bool,
    /// The server's name, as pages and feeds name the site.
    name: String,
    /// The site's address as readers reach it, without a final `/`.
    url: String,
}

/// The routes, with what guards them.
fn router(site: Arc<Site>) -> Router {
    Router::new()
        .route("/", get(pages::index))
        .route("/style.css", get(style))
        .route("/step.js", get(script))
        .route("/tournaments", get(pages::tournaments))
        .route("/help", get(pages::help_index))
        .route("/help/{topic}", get(pages::help_topic))
        .route("/player/{userid}", get(pages::player))
        .route("/player/{userid}/feed", get(feed::player_feed))
        .route("/game/{game}", get(pages::game_boards))
        .route("/game/{game}/standings", get(pages::standings))
        .route("/game/{game}/board/{board}", get(pages::board))
        .route("/game/{game}/board/{board}/move", post(form::play))
        .route("/game/{game}/board/{board}/pgn", get(pages::board_pgn))
        .route("/game/{game}/board/{board}/feed", get(feed::board_feed))
        .route("/game/{game}/tournament/{name}", get(pages::tournament))
        .route(
            "/game/{game}/tournament/{name}/pgn",
            get(pages::tournament_pgn),
        )
        .fallback(pages::not_found)
        .method_not_allowed_fallback(pages::not_allowed)
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&site),
            guard::limit,
        ))
        .layer(CompressionLayer::new())
        .layer(RequestBodyLimitLayer::new(BODY_BYTES))
        .layer(RequestBodyTimeoutLayer::new(HEAD_DEADLINE))
        .layer(CatchPanicLayer::custom(|_| {
            tracing::error!("a page panicked");
            page::PageError::Internal.into_response()
        }))
        .layer(axum::middleware::from_fn(guard::headers))
        .with_state(site)
}

async fn style() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/css; charset=utf-8")],
        include_str!("style.css"),
    )
}

async fn script() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        include_str!("step.js"),
    )
}

/// `pbmchess web`: serve the site on `[web] listen` until SIGTERM or
/// SIGINT. The address bound (the port the system chose, for port 0) is
/// printed on standard output as `listening on http://ADDRESS`, and
/// logged.
pub(crate) fn run(app: App, conn: rusqlite::Connection) -> Result<ExitCode, AppError> {
    let listen: SocketAddr = app.config.web.listen.parse().map_err(|_| {
        AppError::Failed(format!(
            "[web] listen = {:?} is not an address and port, such as 127.0.0.1:8080",
            app.config.web.listen
        ))
    })?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("web")
        .build()
        .map_err(|e| AppError::Failed(format!("the web site's runtime did not start: {e}")))?;
    // The site lives as long as the process.
    let app: &'static App = Box::leak(Box::new(app));
    let path: PathBuf = app.config.database.path.clone();
    runtime.block_on(async move {
        let listener = TcpListener::bind(listen).await.map_err(|e| {
            AppError::Failed(format!("the web site cannot listen on {listen}: {e}"))
        })?;
        let bound = listener
            .local_addr()
            .map_err(|e| AppError::Failed(format!("the web site's address is unknown: {e}")))?;
        let url = app
            .config
            .web
            .url
            .clone()
            .unwrap_or_else(|| format!("http://{bound}"))
            .trim_end_matches('/')
            .to_string();
        let site = Arc::new(Site {
            reader: Arc::new(Reader::new(app.server(), path, conn)),
            limiter: Limiter::new(app.config.web.requests_per_minute, app.config.web.burst),
            behind_proxy: app.config.web.behind_proxy,
            name: app.config.server.name.clone(),
            url,
        });
        tracing::info!(address = %bound, "the web site is listening");
        crate::cli::out(&format!("listening on http://{bound}\n"));
        accept(listener, router(site)).await;
        tracing::info!("the web site stopped");
        Ok(ExitCode::SUCCESS)
    })
}

/// Serve connections until SIGTERM or SIGINT (see the module's bounds).
async fn accept(listener: TcpListener, app: Router) {
    let slots = Arc::new(tokio::sync::Semaphore::new(CONNECTIONS));
    let stop = stopped();
    tokio::pin!(stop);
    loop {
        let slot = tokio::select! {
            _ = &mut stop => return,
            slot = Arc::clone(&slots).acquire_owned() => match slot {
                Ok(slot) => slot,
                Err(_) => return,
            },
        };
        let (stream, peer) = tokio::select! {
            _ = &mut stop => return,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of file descriptors, most likely: a moment's pause.
                    tracing::warn!(error = %e, "a connection could not be accepted");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
        };
        let _ = stream.set_nodelay(true);
        let app = app.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(
                move |mut request: hyper::Request<hyper::body::Incoming>| {
                    request.extensions_mut().insert(Peer(peer));
                    app.clone().oneshot(request.map(axum::body::Body::new))
                },
            );
            let connection = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(HEAD_DEADLINE)
                .max_buf_size(64 * 1024)
                .serve_connection(TokioIo::new(stream), service);
            tokio::pin!(connection);
            tokio::select! {
                _ = connection.as_mut() => {}
                _ = tokio::time::sleep(CONNECTION_LIFETIME) => {
                    connection.as_mut().graceful_shutdown();
                    let _ = tokio::time::timeout(PAGE_DEADLINE_GRACE, connection).await;
                }
            }
            drop(slot);
        });
    }
}

/// What a connection at the end of its lifetime gets to finish its page.
const PAGE_DEADLINE_GRACE: Duration = Duration::from_secs(5);

/// Resolves on SIGTERM or SIGINT.
async fn stopped() {
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = term => {}
        _ = tokio::signal::ctrl_c() => {}
    }
}
