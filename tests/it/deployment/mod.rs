//! The deployment as written: the systemd unit, the deployment config,
//! the exit codes an MTA reads from `process`, `init`'s warnings, and the
//! log formats.

use crate::common;

use std::path::Path;
use std::process::{Command, Stdio};

use common::{raw_mail, Install, SERVER_ADDRESS};

mod exits;
mod logs;
mod unit;

const UNIT: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/contrib/pbmchess.service"
));
const SENDMAIL_DROP_IN: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/contrib/pbmchess-sendmail.conf"
));
const DEPLOYMENT_DOC: &str =
    include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/deployment.md"));

/// A secret planted in configs: it must appear in no output.
const PLANTED: &str = "Pl4nted-S3cret-77ab";
