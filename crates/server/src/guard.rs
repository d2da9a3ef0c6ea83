//! What every request passes first: the token (when one is set), the limit
//! on requests in flight, and the count of answers for `/metrics`.

use std::sync::Arc;

use axum::extract::{MatchedPath, Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use tokio::sync::Semaphore;

use crate::error::ApiError;
use crate::metrics::Metrics;
use crate::token::Token;

/// The guard's settings and its permits.
pub struct Guard {
    token: Option<Token>,
    permits: Semaphore,
    metrics: Arc<Metrics>,
}

impl Guard {
    /// A guard asking for `token` (if any), letting `most` requests in at
    /// once.
    pub fn new(token: Option<Token>, most: usize, metrics: Arc<Metrics>) -> Guard {
        Guard {
            token,
            permits: Semaphore::new(most.max(1)),
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
}

/// The middleware: `/healthz` and `/readyz` answer anyone; the rest need
/// the token, and a free permit.
pub async fn check(State(guard): State<Arc<Guard>>, request: Request, next: Next) -> Response {
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unknown".to_string(), |p| p.as_str().to_string());
    let open = matches!(route.as_str(), "/healthz" | "/readyz");
    let response = if !open && !guard.admits(&request) {
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
    } else {
        match guard.permits.try_acquire() {
            Ok(_permit) => next.run(request).await,
            Err(_) => ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "overloaded",
                "too many requests in flight (--max-concurrent): retry shortly",
            )
            .into_response(),
        }
    };
    guard.metrics.request(&route, response.status().as_u16());
    response
}
