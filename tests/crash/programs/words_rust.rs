// words_rust.rs — a Rust program that aborts through its standard library
// (std::process::abort, then libc's abort: std frames linked into the app).
// Not a panic with panic=abort: Debian's prebuilt panic_abort crate has no
// .eh_frame, so no unwinder at crash time gets past it.  It does not link
// postmortem: the tests run it under libpostmortem-preload.so.
mod app {
    #[inline(never)]
    pub fn parse_config(line: usize) -> usize {
        if line > 3 {
            eprintln!("bad config line {}", line);
            std::process::abort();
        }
        line
    }
}

fn main() {
    let n = std::env::args().count() + 41;
    println!("{}", app::parse_config(n));
}
