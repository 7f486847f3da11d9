//! Opening the files a user names (sources, specifications, logs, expected
//! outputs) without being held up or swamped by special ones: a regular
//! file is read as it is; a device, a pipe or a socket is read up to a
//! limit (`/dev/zero` never ends), and a named pipe (FIFO) that nothing
//! writes to is refused at once instead of waiting in `open` for a writer.

use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::os::unix::io::AsRawFd;
use std::path::Path;

/// An open input and what it is.
pub struct Input {
    pub file: File,
    /// Its length, for a regular file; `None` for a device, pipe or socket,
    /// whose end only reading finds.
    pub len: Option<u64>,
    /// Bytes already read from a pipe to see that it has a writer: they
    /// come before what `file` reads next.
    pub head: Vec<u8>,
}

/// Opens `path` for reading. A directory is refused. A named pipe is
/// opened without waiting, and refused when no process has it open for
/// writing and nothing is left in it.
pub fn open(path: &Path) -> io::Result<Input> {
    // `metadata` does not open the file, so it cannot block on a FIFO.
    let meta = std::fs::metadata(path)?;
    if meta.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            "is a directory",
        ));
    }
    if meta.is_file() {
        let file = File::open(path)?;
        let len = file.metadata()?.len();
        return Ok(Input {
            file,
            len: Some(len),
            head: Vec::new(),
        });
    }
    if !meta.file_type().is_fifo() {
        return Ok(Input {
            file: File::open(path)?,
            len: None,
            head: Vec::new(),
        });
    }
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    let mut head = vec![0u8; 1];
    let n = loop {
        match (&file).read(&mut head) {
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => break None,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
            Ok(n) => break Some(n),
        }
    };
    match n {
        // Nothing in the pipe and no writer: waiting could last for ever.
        Some(0) => {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "a named pipe with no process writing to it (trace does not wait for one)",
            ))
        }
        Some(n) => head.truncate(n),
        // A writer has it open but has not written yet: wait for it as usual.
        None => head.clear(),
    }
    set_blocking(&file)?;
    Ok(Input {
        file,
        len: None,
        head,
    })
}

fn set_blocking(file: &File) -> io::Result<()> {
    let fd = file.as_raw_fd();
    // SAFETY: fcntl on a descriptor this function's caller owns; F_GETFL
    // and F_SETFL take and return plain flags.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 || libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

impl Input {
    /// Reads the rest of the input; more than `limit` bytes in all is an
    /// error naming the limit (`what` says what the file was to be).
    pub fn read_all(mut self, limit: u64, what: &str) -> io::Result<Vec<u8>> {
        if let Some(len) = self.len.filter(|&len| len > limit) {
            return Err(too_large(Some(len), limit, what));
        }
        let mut bytes = std::mem::take(&mut self.head);
        let room = limit + 1 - bytes.len() as u64;
        (&mut self.file).take(room).read_to_end(&mut bytes)?;
        if bytes.len() as u64 > limit {
            return Err(too_large(None, limit, what));
        }
        Ok(bytes)
    }

    /// Reads exactly `buf.len()` more bytes, or fewer at the end of the input
    /// (returned: how many were read).
    pub fn read_up_to(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let from_head = self.head.len().min(buf.len());
        buf[..from_head].copy_from_slice(&self.head[..from_head]);
        self.head.drain(..from_head);
        let mut got = from_head;
        while got < buf.len() {
            match self.file.read(&mut buf[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(got)
    }
}

/// The error for an input over its limit: `len` when the size was known
/// up front, `None` when reading found more than the limit.
fn too_large(len: Option<u64>, limit: u64, what: &str) -> io::Error {
    let size = match len {
        Some(len) => format!("{len} bytes"),
        None => format!("more than {limit} bytes"),
    };
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("{size}: {what} is at most {limit} bytes"),
    )
}

/// Opens and reads the whole file at `path`, at most `limit` bytes.
pub fn read(path: &Path, limit: u64, what: &str) -> io::Result<Vec<u8>> {
    open(path)?.read_all(limit, what)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endless_devices_are_cut_at_the_limit() {
        let e = read(Path::new("/dev/zero"), 1000, "a test input").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        assert!(e.to_string().contains("at most 1000 bytes"), "{e}");
        assert!(read(Path::new("/dev/null"), 10, "x").unwrap().is_empty());
    }
}
