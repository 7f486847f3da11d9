fn main() {
    let args: Vec<std::path::PathBuf> = std::env::args().skip(1).map(Into::into).collect();
    let l = trace_runtime::load(&args[..1], &Default::default()).unwrap_or_else(|_| panic!("load"));
    let want = std::env::args().nth(2).unwrap();
    for f in &l.program.funs {
        if f.name.name() == want {
            println!(
                "{}:{}/{} nslots={}",
                f.module.name(),
                f.name.name(),
                f.arity,
                f.nslots
            );
            for (i, ins) in f.code.iter().enumerate() {
                println!("  {i:3} {ins:?}");
            }
        }
    }
}
