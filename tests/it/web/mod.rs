//! `pbmchess web`, the read-only site, driven through the real binary: it
//! listens on a port the system chooses (`[web] listen` port 0) and says
//! which on its first line of output; the tests speak HTTP to it and look
//! at the pages in headless Chromium.

mod browser;
mod form;
mod pages;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Stdio};

use crate::common::{self, Install};

/// A running `pbmchess web` of an installation; stopped when dropped.
pub struct Web {
    child: Child,
    /// `127.0.0.1:PORT`.
    pub addr: String,
}

impl Web {
    pub fn start(install: &Install) -> Web {
        Web::spawn(install, "warn", Stdio::null())
    }

    /// [`Web::start`] with its log (info and up) written to `log`.
    pub fn start_logging(install: &Install, log: &std::path::Path) -> Web {
        let file = std::fs::File::create(log).unwrap();
        Web::spawn(install, "info", Stdio::from(file))
    }

    fn spawn(install: &Install, level: &str, log: Stdio) -> Web {
        let mut child = common::pbmchess()
            .arg("--config")
            .arg(&install.config)
            .arg("web")
            .env("RUST_LOG", level)
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .expect("the binary runs");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let addr = line
            .trim()
            .strip_prefix("listening on http://")
            .unwrap_or_else(|| panic!("the site says where it listens: {line:?}"))
            .to_string();
        Web { child, addr }
    }

    pub fn get(&self, path: &str) -> Answer {
        self.request(&format!(
            "GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
            self.addr
        ))
    }

    /// `raw` sent as it is; the answer read to the end.
    pub fn request(&self, raw: &str) -> Answer {
        let mut stream = TcpStream::connect(&self.addr).unwrap();
        stream.write_all(raw.as_bytes()).unwrap();
        let mut bytes = Vec::new();
        stream.read_to_end(&mut bytes).unwrap();
        Answer::parse(&bytes)
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }
}

impl Drop for Web {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An HTTP answer.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Answer {
    fn parse(bytes: &[u8]) -> Answer {
        let split = bytes
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .expect("an HTTP answer");
        let head = String::from_utf8_lossy(&bytes[..split]);
        let mut rest = &bytes[split + 4..];
        let mut lines = head.lines();
        let status = lines
            .next()
            .unwrap()
            .split(' ')
            .nth(1)
            .unwrap()
            .parse()
            .unwrap();
        let headers: Vec<(String, String)> = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
            .collect();
        let chunked = headers
            .iter()
            .any(|(k, v)| k == "transfer-encoding" && v.contains("chunked"));
        let mut body = Vec::new();
        if chunked {
            loop {
                let end = rest.windows(2).position(|w| w == b"\r\n").unwrap();
                let size = std::str::from_utf8(&rest[..end]).unwrap();
                let size = usize::from_str_radix(size.trim(), 16).unwrap();
                if size == 0 {
                    break;
                }
                body.extend_from_slice(&rest[end + 2..end + 2 + size]);
                rest = &rest[end + 2 + size + 2..];
            }
        } else {
            body.extend_from_slice(rest);
        }
        Answer {
            status,
            headers,
            body: String::from_utf8_lossy(&body).into_owned(),
        }
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The text of HTML or XML with its five escapes read back.
pub fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}
