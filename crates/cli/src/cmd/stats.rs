//! `trace stats` (being written).

use clap::Args as ClapArgs;

#[derive(ClapArgs)]
pub struct Args {
    /// Arguments (being written)
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    rest: Vec<String>,
}

pub fn run(args: Args) -> u8 {
    let _ = args.rest;
    eprintln!("trace stats: not implemented yet");
    crate::exit::TROUBLE
}
