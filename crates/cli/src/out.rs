//! Standard output for the commands' own reports. A reader that closes the
//! pipe early (`trace stats run.trace | head -1`) has all it wants: the
//! command ends quietly there, with status 0, instead of panicking as
//! `println!` does.

use std::io::{self, Write};

/// Writes one line to stdout; on a closed pipe, ends the process quietly.
pub fn line(args: std::fmt::Arguments<'_>) {
    let mut out = io::stdout().lock();
    if let Err(e) = out.write_fmt(args).and_then(|_| out.write_all(b"\n")) {
        closed_or_trouble(e);
    }
}

/// What a failed write to stdout means: a reader that went away (exit 0,
/// quietly), or trouble (exit 2, said on stderr).
pub fn closed_or_trouble(e: io::Error) -> ! {
    if e.kind() == io::ErrorKind::BrokenPipe {
        std::process::exit(crate::exit::OK as i32)
    }
    eprintln!("trace: standard output: {e}");
    std::process::exit(crate::exit::TROUBLE as i32)
}

/// `println!` for a command's report: see [`line`].
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::out::line(format_args!($($arg)*))
    };
}
pub(crate) use outln;
