//! `cargo xtask unity`.

pub fn run(_args: &[String]) -> Result<(), String> {
    Err("the unity packaging task is not written yet".to_string())
}
