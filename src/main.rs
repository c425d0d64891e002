fn main() {
    receipt_review::memory::tune_allocator();
    std::process::exit(receipt_review::cli::main());
}
