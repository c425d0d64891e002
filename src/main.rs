fn main() {
    std::process::exit(receipt_review::cli::main());
}
