//! The bound on a request's target (its path and query, as sent): past
//! it, the service answers a JSON 414 of its own.
//!
//! The HTTP layer has a bound too: a head (request line included) past
//! 16 KiB is answered 431 with an empty body (`listen`'s
//! `MAX_HEAD_BYTES`). Before both, documents could be stored under ids
//! whose paths only the HTTP layer's empty 414 answered.
//! Ids are now at most [`crate::api::MAX_ID_CHARS`] characters, whose
//! paths stay well under this bound.

use axum::extract::Request;
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::api::MAX_ID_CHARS;
use crate::error::ApiError;

/// The most bytes of a request's path and query, percent-encoded as sent.
pub const MAX_URI_BYTES: usize = 8 << 10;

/// The middleware: a request whose target is past [`MAX_URI_BYTES`] is
/// answered 414 `uri_too_long`, the rest go on.
pub async fn bounded(request: Request, next: Next) -> Response {
    let sent = request
        .uri()
        .path_and_query()
        .map_or(0, |target| target.as_str().len());
    if sent > MAX_URI_BYTES {
        return ApiError::new(
            StatusCode::URI_TOO_LONG,
            "uri_too_long",
            format!(
                "a path and query of {sent} bytes; this service takes at most {MAX_URI_BYTES}: \
                 ids are at most {MAX_ID_CHARS} characters, percent-encoded as UTF-8"
            ),
        )
        .into_response();
    }
    next.run(request).await
}
