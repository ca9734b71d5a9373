//! The `toolwright` binary: the library's commands over every linked tool.

fn main() -> std::process::ExitCode {
    toolwright_cli::main()
}
