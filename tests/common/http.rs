//! The request side of the fake model servers on 127.0.0.1: one HTTP/1.1 request
//! read off a connection, as the tests check it.

use std::io::{BufRead, BufReader, Read};
use std::net::TcpStream;

/// What a client sent.
pub struct Seen {
    pub path: String,
    /// Header lines, lowercased.
    pub headers: Vec<String>,
    pub body: serde_json::Value,
}

/// Reads one request (headers, then a `content-length` body of JSON).
pub fn read_request(stream: &TcpStream) -> Seen {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut request_line = String::new();
    reader.read_line(&mut request_line).unwrap();
    let (mut headers, mut length) = (Vec::new(), 0);
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let line = line.trim_end().to_ascii_lowercase();
        if line.is_empty() {
            break;
        }
        if let Some(v) = line.strip_prefix("content-length:") {
            length = v.trim().parse().unwrap();
        }
        headers.push(line);
    }
    let mut raw = vec![0; length];
    reader.read_exact(&mut raw).unwrap();
    let path = request_line.split_whitespace().nth(1).unwrap_or_default().to_owned();
    Seen { path, headers, body: serde_json::from_slice(&raw).unwrap() }
}
