//! What every request passes first: the token (when one is set), its body
//! read within the body limits, the limit on requests worked on at once,
//! and the count of answers for `/metrics`.
//!
//! The body is read before a permit is taken, so that clients that send a
//! head and stall (or trickle) their body hold a connection at most, never
//! a permit: they cannot starve the requests that have theirs. Probes and
//! `/metrics` take no permit at all.

use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::{BodyExt, LengthLimitError, Limited};
use tokio::sync::{Semaphore, SemaphorePermit};

use crate::connections::Phase;
use crate::error::ApiError;
use crate::listen::Arrival;
use crate::metrics::Metrics;
use crate::token::Token;

/// The guard's settings and its permits.
pub struct Guard {
    token: Option<Token>,
    permits: Semaphore,
    max_body_bytes: usize,
    body_timeout: Duration,
    metrics: Arc<Metrics>,
}

impl Guard {
    /// A guard asking for `token` (if any), letting `limits.max_concurrent`
    /// requests be worked on at once.
    pub fn new(token: Option<Token>, limits: &crate::Limits, metrics: Arc<Metrics>) -> Guard {
        Guard {
            token,
            permits: Semaphore::new(limits.max_concurrent.max(1)),
            max_body_bytes: limits.max_body_bytes,
            body_timeout: limits.body_timeout,
            metrics,
        }
    }

    /// Whether `request` carries the token (`Authorization: Bearer
    /// <token>`, the scheme in any case): compared by digest in constant
    /// time, so that the time of a refusal says nothing of how much was
    /// right, nor of the token's length.
    fn admits(&self, request: &Request) -> bool {
        let Some(token) = &self.token else {
            return true;
        };
        let given = request.headers().get(header::AUTHORIZATION);
        token.admits(given.map_or(&[], |v| v.as_bytes()))
    }

    /// Reads the body of `request` within the limits, then takes a permit:
    /// the request, whole, ready for its handler; or the refusal.
    async fn enter(&self, request: Request) -> Result<(Request, SemaphorePermit<'_>), Response> {
        let arrival = request.extensions().get::<Arrival>().cloned();
        let declared = request
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        if declared.is_some_and(|n| n > self.max_body_bytes as u64) {
            return Err(closing(too_large(self.max_body_bytes)));
        }
        let (parts, body) = request.into_parts();
        let mut read = std::pin::pin!(Limited::new(body, self.max_body_bytes).collect());
        // Most bodies came with their head: read at once, with no timer.
        let at_once = std::future::poll_fn(|cx| Poll::Ready(read.as_mut().poll(cx))).await;
        let read = match at_once {
            Poll::Ready(read) => Ok(read),
            Poll::Pending => tokio::time::timeout(self.body_timeout, read).await,
        };
        let bytes = match read {
            Err(_) => {
                return Err(closing(ApiError::new(
                    StatusCode::REQUEST_TIMEOUT,
                    "body_timeout",
                    format!(
                        "the body did not arrive within {} s (--body-timeout): send it whole, at once",
                        self.body_timeout.as_secs_f64()
                    ),
                )));
            }
            Ok(Err(e)) if e.downcast_ref::<LengthLimitError>().is_some() => {
                return Err(closing(too_large(self.max_body_bytes)));
            }
            Ok(Err(e)) => {
                return Err(closing(ApiError::new(
                    StatusCode::BAD_REQUEST,
                    "bad_body",
                    format!("the body could not be read: {e}"),
                )));
            }
            Ok(Ok(collected)) => collected.to_bytes(),
        };
        if arrival.as_ref().is_some_and(|a| a.after_stop) {
            return Err(ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "stopping",
                "the service is stopping; nothing was written: retry on its next start",
            )
            .into_response());
        }
        let permit = self.permits.try_acquire().map_err(|_| {
            ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "overloaded",
                "too many requests in flight (--max-concurrent): retry shortly",
            )
            .into_response()
        })?;
        if let Some(arrival) = &arrival {
            arrival.connection.enter(Phase::Working);
        }
        Ok((Request::from_parts(parts, Body::from(bytes)), permit))
    }
}

fn too_large(most: usize) -> ApiError {
    ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        "body_too_large",
        format!("the body is over {most} bytes (--max-body-bytes): send less per request"),
    )
}

/// An answer after which the connection is closed: the rest of the body
/// was not read, so the next request cannot be found on it.
fn closing(error: ApiError) -> Response {
    let mut response = error.into_response();
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// The middleware: `/healthz` and `/readyz` answer anyone at once;
/// `/metrics` needs the token but no permit; the rest need the token,
/// their body, and a free permit.
pub async fn check(State(guard): State<Arc<Guard>>, request: Request, next: Next) -> Response {
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unknown".to_string(), |p| p.as_str().to_string());
    let probe = matches!(route.as_str(), "/healthz" | "/readyz");
    let response = if !probe && !guard.admits(&request) {
        let mut response = ApiError::new(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "missing or wrong token: send the header Authorization: Bearer <token>",
        )
        .into_response();
        response.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            header::HeaderValue::from_static("Bearer"),
        );
        response
    } else if probe || route == "/metrics" {
        next.run(request).await
    } else {
        match guard.enter(request).await {
            Ok((request, _permit)) => next.run(request).await,
            Err(refusal) => refusal,
        }
    };
    guard.metrics.request(&route, response.status().as_u16());
    response
}
