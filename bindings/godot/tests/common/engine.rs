//! Runs the real Godot: the Godot 4.6 of `godot-addon/tools/provision-godot.sh` (a
//! Debian sid chroot cached outside the clone), on a copy of the demo project with the
//! addon and the debug library cargo built beside the tests installed.
//!
//! The project is staged under the chroot's own `/tmp`, so Godot sees it without a bind
//! mount (a bind mount left in the chroot would make a later `rm -rf` of the chroot
//! delete the clone). Each run has a time limit (`timeout` in the chroot, and a kill of
//! the whole process group from here if even that hangs), and its log is stdout and
//! stderr together. Runs are serialised within a test binary: the machine's cores are
//! shared, and two Godots importing one project at once race on its `.godot/`.

use std::fs;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

// The test file that includes this module (`#[path = "common/engine.rs"] mod engine;`)
// declares `libraries` and `common` beside it: each file may be a module only once per
// test binary (clippy's duplicate_mod), and other tests include them too.
use crate::common;
use crate::libraries;

/// Godot's 3D physics servers the addon must work under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Physics {
    /// Godot's own (`DEFAULT` in 4.6 for a project that names none).
    GodotPhysics,
    /// Jolt, built in since 4.4 and the default of a project made by 4.6.
    Jolt,
}

/// Both servers.
pub const PHYSICS: [Physics; 2] = [Physics::GodotPhysics, Physics::Jolt];

impl Physics {
    /// The value of the project setting `physics/3d/physics_engine`.
    pub fn setting(self) -> &'static str {
        match self {
            Physics::GodotPhysics => "GodotPhysics3D",
            Physics::Jolt => "Jolt Physics",
        }
    }
}

/// The provisioned Godot.
pub struct Godot {
    chroot: PathBuf,
}

/// Provisions Godot (quick when it is there). `None` after printing `skipped: <why>` when
/// it cannot be provisioned here (not root, no network); under `CI=true` that fails.
pub fn godot() -> Option<Godot> {
    let script = common::root().join("godot-addon/tools/provision-godot.sh");
    let output = Command::new("sh")
        .arg(&script)
        .stdin(Stdio::null())
        .output()
        .expect("sh runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    match output.status.code() {
        Some(0) => {
            let path = String::from_utf8_lossy(&output.stdout).trim().to_string();
            Some(Godot {
                chroot: PathBuf::from(path),
            })
        }
        Some(77) => {
            let why = stderr.trim();
            crate::skip::skipped(&format!("Godot: {why}"));
            None
        }
        _ => panic!("provision-godot.sh failed ({}):\n{stderr}", output.status),
    }
}

/// Serialises Godot runs (and stagings) within this test binary.
fn godot_lock() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The debug library cargo built beside this test (the cdylib of `keel-godot`).
fn built_library() -> PathBuf {
    let exe = std::env::current_exe().expect("the test's path");
    let deps = exe.parent().expect("deps/");
    [
        deps.join("libkeel_godot.so"),
        deps.parent().unwrap().join("libkeel_godot.so"),
    ]
    .into_iter()
    .filter(|p| p.exists())
    .max_by_key(|p| fs::metadata(p).and_then(|m| m.modified()).ok())
    .expect("cargo builds the cdylib beside the tests")
}

/// A copy of the demo project inside the chroot, the addon and the library installed,
/// imported. Removed when dropped (set `KEEL_GODOT_KEEP=1` to keep it for a look).
pub struct Project {
    chroot: PathBuf,
    /// Its path inside the chroot.
    inside: String,
}

/// One run of Godot.
#[derive(Debug)]
pub struct Run {
    /// Godot's exit code (`None`: killed by a signal).
    pub code: Option<i32>,
    /// Whether it ran out of time.
    pub timed_out: bool,
    /// stdout and stderr, interleaved.
    pub log: String,
}

impl Run {
    /// Lines in which Godot reports an error: `ERROR:`, `SCRIPT ERROR:`, `USER ERROR:`,
    /// and crashes.
    pub fn errors(&self) -> Vec<&str> {
        self.log
            .lines()
            .filter(|l| {
                let l = l.trim_start();
                l.starts_with("ERROR:")
                    || l.starts_with("SCRIPT ERROR:")
                    || l.starts_with("USER ERROR:")
                    || l.contains("Program crashed with signal")
            })
            .collect()
    }

    /// Whether it exited 0 in time.
    pub fn succeeded(&self) -> bool {
        self.code == Some(0) && !self.timed_out
    }

    /// The values printed on lines `KEEL <kind> key=value ...`, one map per line.
    pub fn records(&self, kind: &str) -> Vec<std::collections::BTreeMap<String, String>> {
        let prefix = format!("KEEL {kind} ");
        self.log
            .lines()
            .filter_map(|l| l.strip_prefix(&prefix))
            .map(|rest| {
                rest.split_whitespace()
                    .filter_map(|kv| kv.split_once('='))
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect()
            })
            .collect()
    }
}

impl Godot {
    /// Stages the demo project (with `extra` files written into it: relative path,
    /// contents), installs the addon and the debug library, and imports it.
    pub fn stage(&self, name: &str, extra: &[(&str, &str)]) -> Project {
        let project = self.project(name, Some(&common::demo()), extra);
        // The first headless import of a fresh project with a GDExtension may crash
        // (Godot issue 111048); the second finds the cache the first wrote.
        let first = project.run(None, &["--import"], Duration::from_secs(120));
        if !first.succeeded() {
            let second = project.run(None, &["--import"], Duration::from_secs(120));
            assert!(
                second.succeeded(),
                "godot --import failed twice:\n{}\n---\n{}",
                first.log,
                second.log
            );
        }
        project
    }

    /// Stages a project of only `files` (relative path, contents; `project.godot` among
    /// them) with the addon and the debug library installed. Not imported: a project
    /// with no resources needs no import, and `install` lists the extension in
    /// `.godot/extension_list.cfg` (so Godot issue 111048, the crash of a first import
    /// with a GDExtension, does not arise).
    pub fn stage_files(&self, name: &str, files: &[(&str, &str)]) -> Project {
        self.project(name, None, files)
    }

    /// A project directory under the chroot's `/tmp`: a copy of `template` if given, the
    /// addon and the debug library installed, `extra` written.
    fn project(&self, name: &str, template: Option<&std::path::Path>, extra: &[(&str, &str)]) -> Project {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let inside = format!(
            "/tmp/keel-test-{name}-{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        let project = Project {
            chroot: self.chroot.clone(),
            inside,
        };
        let host = project.path();
        if host.exists() {
            fs::remove_dir_all(&host).unwrap();
        }
        match template {
            Some(dir) => libraries::copy_dir(dir, &host).unwrap(),
            None => fs::create_dir_all(&host).unwrap(),
        }
        // A stale local install of the addon in the demo (from `cargo xtask godot`) is
        // replaced by the repository's addon.
        let installed = libraries::install(&common::addon(), &host).unwrap();
        let debug = libraries::find(None, false).expect("a debug library entry for this machine");
        let bin = installed.join("bin");
        fs::create_dir_all(&bin).unwrap();
        let dest = bin.join(debug.file);
        let built = built_library();
        // A hard link when the chroot and target/ share a file system: the debug
        // library is large.
        if fs::hard_link(&built, &dest).is_err() {
            fs::copy(&built, &dest).unwrap();
        }
        for (path, contents) in extra {
            let file = host.join(path);
            fs::create_dir_all(file.parent().unwrap()).unwrap();
            fs::write(file, contents).unwrap();
        }
        project
    }
}

impl Project {
    /// Its path on the host.
    pub fn path(&self) -> PathBuf {
        self.chroot.join(self.inside.trim_start_matches('/'))
    }

    /// Its path inside the chroot (what Godot sees).
    pub fn inside(&self) -> &str {
        &self.inside
    }

    /// Runs `godot --headless --path <project> args...` under `physics` (the project's
    /// own setting when `None`), killed after `limit`.
    pub fn run(&self, physics: Option<Physics>, args: &[&str], limit: Duration) -> Run {
        self.run_with(physics, false, args, limit)
    }

    /// Runs Godot with a display (Xvfb) and Mesa's software OpenGL, for pictures.
    pub fn run_rendering(&self, physics: Option<Physics>, args: &[&str], limit: Duration) -> Run {
        self.run_with(physics, true, args, limit)
    }

    fn run_with(&self, physics: Option<Physics>, display: bool, args: &[&str], limit: Duration) -> Run {
        let _serial = godot_lock();
        // override.cfg at a project's root overrides its project.godot: Godot has no
        // command-line option for the physics server.
        let overrides = self.path().join("override.cfg");
        match physics {
            Some(p) => fs::write(
                &overrides,
                format!("[physics]\n\n3d/physics_engine=\"{}\"\n", p.setting()),
            )
            .unwrap(),
            None => {
                let _ = fs::remove_file(&overrides);
            }
        }
        let log_path = self.path().join("godot-run.log");
        let log = fs::File::create(&log_path).unwrap();
        let secs = limit.as_secs().max(1).to_string();
        let mut command = Command::new("chroot");
        command.arg(&self.chroot);
        if display {
            command.args(["xvfb-run", "-a", "-s", "-screen 0 1280x720x24"]);
        }
        command
            .args(["timeout", "-k", "5", &secs, "godot"])
            .args(if display {
                &[
                    "--rendering-driver",
                    "opengl3",
                    "--rendering-method",
                    "gl_compatibility",
                ][..]
            } else {
                &["--headless"][..]
            })
            .args(["--path", &self.inside])
            .args(args)
            .env("HOME", "/root")
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log);
        // Its own process group, so that a hung run is killed with all its children.
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command.spawn().expect("chroot runs");
        let deadline = Instant::now() + limit + Duration::from_secs(20);
        let mut timed_out = false;
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                timed_out = true;
                let _ = Command::new("kill")
                    .args(["-KILL", &format!("-{}", child.id())])
                    .status();
                break child.wait().unwrap();
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let code = status.code();
        // `timeout` exits 124 when it had to stop Godot.
        let timed_out = timed_out || code == Some(124) || code == Some(137);
        Run {
            code,
            timed_out,
            log: fs::read(&log_path).map_or_else(
                |e| format!("(no log: {e})"),
                |b| String::from_utf8_lossy(&b).into_owned(),
            ),
        }
    }
}

impl Drop for Project {
    fn drop(&mut self) {
        if std::env::var_os("KEEL_GODOT_KEEP").is_none() {
            let _ = fs::remove_dir_all(self.path());
        }
    }
}
