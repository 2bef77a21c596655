//! `cargo xtask godot`.

pub fn run(_args: &[String]) -> Result<(), String> {
    Err("the godot packaging task is not written yet".to_string())
}
