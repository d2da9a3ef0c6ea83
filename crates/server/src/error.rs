//! Errors as the API answers them: a status and `{"error": {"code",
//! "message"}}`, the message saying what to do.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

/// An error answered to a request.
#[derive(Debug)]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// A short code a program can match on.
    pub code: &'static str,
    /// What went wrong and what to do, for people.
    pub message: String,
}

impl ApiError {
    /// An error of `status` with `code` and `message`.
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
        }
    }

    /// A request the service cannot take (400).
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, "bad_request", message)
    }

    /// A failure of the store (500): nothing was acknowledged.
    pub fn store(e: &neardup_store::Error) -> ApiError {
        match e {
            neardup_store::Error::Input(m) => ApiError::bad_request(m.clone()),
            _ => ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "store_failed",
                format!("the store failed, nothing was written: {e}"),
            ),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = json!({"error": {"code": self.code, "message": self.message}});
        (self.status, Json(body)).into_response()
    }
}
