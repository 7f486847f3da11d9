//! What a log keeps beyond the choices replay needs.

/// What to record beyond the choices.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RecordFlags {
    /// Message payloads and exit reasons (needed to read, diff and check the
    /// log without the program; replay does not need them).
    pub payloads: bool,
    /// Mailbox arrivals (`deliver` events).
    pub deliveries: bool,
    /// The bytes each process wrote to standard output.
    pub output: bool,
}

impl Default for RecordFlags {
    fn default() -> Self {
        RecordFlags {
            payloads: true,
            deliveries: false,
            output: false,
        }
    }
}

impl RecordFlags {
    /// The flags a log was recorded with, from its header.
    pub fn of_header(h: &trace_format::Header) -> RecordFlags {
        RecordFlags {
            payloads: h.options.payloads,
            deliveries: h.options.deliveries,
            output: h.options.output,
        }
    }
}
