fn main() {
    receipt_review::memory::one_arena_per_core();
    std::process::exit(receipt_review::cli::main());
}
