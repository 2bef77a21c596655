//! The C and C++ hosts, built the way their users build them, against the library cargo
//! built for this test run (`libkeel.a` and `libkeel.so` beside this test executable):
//!
//! - `examples/cpp_engine` configured and built by CMake from a clean build folder
//!   (add_subdirectory of the repository, and find_package after `cmake --install`,
//!   static and shared), run, and run again under valgrind's memcheck;
//! - `bindings/cpp/tests/wrapper_test.cpp`, keel.hpp's own checks, with exceptions and
//!   with `-fno-exceptions -DKEEL_NO_EXCEPTIONS`, and under valgrind;
//! - keel.hpp wrapping every function keel.h declares, and adding nothing to a step
//!   (`bindings/cpp/tests/wrapper_cost.cpp`, counted by callgrind);
//! - `bindings/cpp/tests/app.c` compiled with the exact `cc` lines of
//!   `bindings/cpp/README.md`, read from it, directly and through pkg-config.
//!
//! Where a tool is missing (cmake, c++, pkg-config, valgrind) a test says "skipped" and
//! returns, except under CI=true, where it fails. Unix only: the lines are Unix lines.

#![cfg(unix)]

mod skip;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The crate's `staticlib` and `cdylib` of this very build, which cargo writes beside
/// this test executable (see tests/c_abi.rs), copied once into a directory of this run:
/// in a shared target directory another cargo may rewrite them while these builds read.
fn library_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let exe = std::env::current_exe().expect("cannot locate the test executable");
        let built = exe.parent().expect("the test executable has no directory");
        remove_stale_scratch();
        let dir = scratch("lib");
        for name in ["libkeel.a", "libkeel.so"] {
            assert!(
                built.join(name).is_file(),
                "{name} is missing beside the test executable: Cargo.toml's [lib] crate-type \
                 must list \"staticlib\" and \"cdylib\""
            );
            std::fs::copy(built.join(name), dir.join(name)).expect("cannot copy the library");
        }
        dir
    })
}

/// Removes the scratch directories of earlier runs whose process is gone: each run
/// leaves a few hundred megabytes (debug libraries, installs), and runs of other
/// engineers in the same target directory may still be using theirs.
fn remove_stale_scratch() {
    // Without /proc (not Linux) a live run cannot be told from a dead one: keep all.
    let Ok(entries) = std::fs::read_dir(env!("CARGO_TARGET_TMPDIR")) else {
        return;
    };
    if !Path::new("/proc/self").exists() {
        return;
    }
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = name.strip_prefix("cpp-").and_then(|rest| rest.rsplit('-').next()) else {
            continue;
        };
        let alive = Path::new("/proc").join(pid).exists();
        if pid.parse::<u32>().is_ok() && !alive {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// A fresh, empty directory for one build: CMake must work from a clean folder.
fn scratch(tag: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cpp-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("cannot create a scratch directory");
    dir
}

/// Whether `tool` runs. A missing tool skips the calling test (it prints why), except
/// under CI=true, where the suite must not pass by skipping.
fn have(tool: &str, version_arg: &str) -> bool {
    let found = Command::new(tool)
        .arg(version_arg)
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !found {
        skip::skipped(&format!("{tool} is not installed"));
    }
    found
}

/// Runs a command that must succeed; on failure the assertion shows its output.
fn run(command: &mut Command) -> Output {
    // cargo test puts target/<profile> on LD_LIBRARY_PATH, which outranks an executable's
    // rpath: a libkeel.so that `cargo build` left there (older, maybe of another ABI)
    // would be loaded instead of the one the build under test links.
    command.env_remove("LD_LIBRARY_PATH");
    let shown = format!("{command:?}");
    let output = command.output().unwrap_or_else(|e| panic!("cannot run {shown}: {e}"));
    assert!(
        output.status.success(),
        "{shown} failed ({}):\n{}{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn cmake_configure(source: &Path, build: &Path, definitions: &[String]) {
    run(Command::new("cmake")
        .arg("-S")
        .arg(source)
        .arg("-B")
        .arg(build)
        .arg("-DCMAKE_BUILD_TYPE=Debug")
        .arg("-DCMAKE_CXX_FLAGS=-Wall -Wextra -Werror")
        .args(definitions));
}

fn cmake_build(build: &Path) {
    run(Command::new("cmake").arg("--build").arg(build));
}

/// `cmake --install` of the repository into a temporary prefix, the shared or the
/// static library; returns the prefix.
fn install(shared: bool) -> PathBuf {
    let tag = if shared { "install-shared" } else { "install-static" };
    let dir = scratch(tag);
    let (build, prefix) = (dir.join("build"), dir.join("prefix"));
    cmake_configure(
        &root(),
        &build,
        &[
            format!("-DKEEL_LIBRARY_DIR={}", library_dir().display()),
            format!("-DKEEL_SHARED={}", if shared { "ON" } else { "OFF" }),
        ],
    );
    cmake_build(&build);
    run(Command::new("cmake")
        .arg("--install")
        .arg(&build)
        .arg("--prefix")
        .arg(&prefix));
    prefix
}

fn static_prefix() -> &'static Path {
    static PREFIX: OnceLock<PathBuf> = OnceLock::new();
    PREFIX.get_or_init(|| install(false))
}

fn shared_prefix() -> &'static Path {
    static PREFIX: OnceLock<PathBuf> = OnceLock::new();
    PREFIX.get_or_init(|| install(true))
}

/// The example built from a clean folder through add_subdirectory of the repository.
fn example() -> &'static Path {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        let build = scratch("engine");
        cmake_configure(
            &root().join("examples/cpp_engine"),
            &build,
            &[format!("-DKEEL_LIBRARY_DIR={}", library_dir().display())],
        );
        cmake_build(&build);
        build.join("cpp_engine")
    })
}

fn stdout_of(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The shared objects an executable needs (readelf), or None without readelf.
fn needed_libraries(exe: &Path) -> Option<String> {
    let output = Command::new("readelf").arg("-d").arg(exe).output().ok()?;
    output.status.success().then(|| stdout_of(&output))
}

/// The example's closing verdict, and that the Archimedes checks did run.
fn assert_sane_full_run(stdout: &str) {
    assert!(
        stdout.contains("physics sanity: OK"),
        "the example reports failures:\n{stdout}"
    );
    for check in [
        "[ ok ] flat water: box mean draft",
        "[ ok ] Gerstner sea: box mean draft",
        "[ ok ] flat water: boat displaces",
        "[ ok ] nothing exploded",
        "[ ok ] the engine's pool",
    ] {
        assert!(
            stdout.contains(check),
            "the example did not report \"{check}\":\n{stdout}"
        );
    }
    let header = std::fs::read_to_string(root().join("include/keel.h")).expect("cannot read keel.h");
    if header.contains("keel_body_find_equilibrium") {
        assert!(
            stdout.contains("[ ok ] boat spawned at keel's equilibrium"),
            "keel.h has keel_body_find_equilibrium but the example did not check it:\n{stdout}"
        );
    } else {
        eprintln!("note: keel.h has no keel_body_find_equilibrium yet; the example drops its boat");
    }
}

#[test]
fn cpp_engine_builds_with_cmake_and_floats_by_archimedes() {
    if !have("cmake", "--version") || !have("c++", "--version") {
        return;
    }
    let output = run(&mut Command::new(example()));
    let stdout = stdout_of(&output);
    print!("{stdout}");
    assert_sane_full_run(&stdout);
}

const VALGRIND_ARGS: [&str; 5] = [
    "--error-exitcode=99",
    "--leak-check=full",
    "--show-leak-kinds=definite,possible",
    "--errors-for-leak-kinds=definite,possible",
    "--track-origins=no",
];

fn valgrind(exe: &Path, args: &[&str]) -> Output {
    let output = Command::new("valgrind")
        .args(VALGRIND_ARGS)
        .arg(format!(
            "--suppressions={}",
            root().join("tests/valgrind.supp").display()
        ))
        .arg(exe)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run valgrind: {e}"));
    let stderr = String::from_utf8_lossy(&output.stderr);
    let tail: Vec<&str> = stderr.lines().rev().take(40).collect();
    assert!(
        output.status.success(),
        "valgrind reports errors in {} ({}):\n{}\n{}",
        exe.display(),
        output.status,
        stdout_of(&output),
        tail.into_iter().rev().collect::<Vec<_>>().join("\n")
    );
    output
}

/// A short run (its Archimedes checks skip themselves): memcheck is about the host's
/// and the wrapper's memory, which the first seconds exercise whole.
#[test]
fn cpp_engine_runs_clean_under_valgrind() {
    if !have("cmake", "--version") || !have("c++", "--version") || !have("valgrind", "--version") {
        return;
    }
    if !cfg!(debug_assertions) {
        // Valgrind 3.19 stops on an instruction of the release build's AVX2 drag loop
        // ("Illegal opcode"), which the boat's big hull reaches; the suite (a debug build,
        // as CI runs it) checks the same code paths' memory.
        return skip::skipped("valgrind cannot decode the release build's AVX2 loops; run it in a debug build");
    }
    let output = valgrind(example(), &["--flat", "2", "--waves", "2"]);
    let stdout = stdout_of(&output);
    assert!(stdout.contains("physics sanity: OK"), "{stdout}");
    assert!(stdout.contains("[ ok ] nothing exploded"), "{stdout}");
}

/// Compiles the wrapper's test program; `no_exceptions` builds the other error mode.
fn build_wrapper_test(no_exceptions: bool) -> PathBuf {
    let dir = scratch(if no_exceptions { "wrapper-noexcept" } else { "wrapper" });
    let exe = dir.join("wrapper_test");
    let mut command = Command::new("c++");
    command.args(["-std=c++17", "-Wall", "-Wextra", "-pedantic", "-Werror", "-g"]);
    if no_exceptions {
        command.args(["-fno-exceptions", "-DKEEL_NO_EXCEPTIONS"]);
    }
    run(command
        .arg("-I")
        .arg(root().join("include"))
        .arg("-I")
        .arg(root().join("bindings/cpp"))
        .arg(root().join("bindings/cpp/tests/wrapper_test.cpp"))
        .arg(library_dir().join("libkeel.a"))
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&exe));
    exe
}

fn assert_wrapper_checks_passed(stdout: &str) {
    let summary = stdout
        .lines()
        .rev()
        .find(|line| line.ends_with(" failed"))
        .unwrap_or_else(|| panic!("no \"N passed, M failed\" line:\n{stdout}"));
    assert!(
        summary.ends_with(" 0 failed"),
        "keel.hpp's checks fail: {summary}\n{stdout}"
    );
}

#[test]
fn wrapper_with_exceptions() {
    if !have("c++", "--version") {
        return;
    }
    let stdout = stdout_of(&run(&mut Command::new(build_wrapper_test(false))));
    print!("{stdout}");
    assert!(stdout.contains("exceptions mode:"), "{stdout}");
    assert_wrapper_checks_passed(&stdout);
}

#[test]
fn wrapper_without_exceptions() {
    if !have("c++", "--version") {
        return;
    }
    let stdout = stdout_of(&run(&mut Command::new(build_wrapper_test(true))));
    print!("{stdout}");
    assert!(stdout.contains("no-exceptions mode:"), "{stdout}");
    assert_wrapper_checks_passed(&stdout);
}

#[test]
fn wrapper_runs_clean_under_valgrind() {
    if !have("c++", "--version") || !have("valgrind", "--version") {
        return;
    }
    let exe = build_wrapper_test(false);
    assert_wrapper_checks_passed(&stdout_of(&valgrind(&exe, &[])));
}

/// The `cc` lines of bindings/cpp/README.md's fenced blocks, in order.
fn readme_cc_lines() -> Vec<String> {
    let readme =
        std::fs::read_to_string(root().join("bindings/cpp/README.md")).expect("cannot read bindings/cpp/README.md");
    readme
        .lines()
        .map(str::trim)
        .filter(|line| line.starts_with("cc "))
        .map(String::from)
        .collect()
}

/// Runs a README line verbatim with `sh` in `dir`, then the program it built, which
/// checks Archimedes on a box and prints "lift/weight".
fn build_and_run_app(line: &str, dir: &Path, env: &[(&str, &Path)]) -> PathBuf {
    std::fs::copy(root().join("bindings/cpp/tests/app.c"), dir.join("app.c")).expect("cannot copy app.c");
    let mut command = Command::new("sh");
    command.arg("-c").arg(line).current_dir(dir);
    for (key, value) in env {
        command.env(key, value);
    }
    run(&mut command);
    let app = dir.join("app");
    let stdout = stdout_of(&run(&mut Command::new(&app)));
    assert!(stdout.contains("lift/weight"), "{stdout}");
    app
}

/// The README's lines for a C program beside the repository's `include/` and cargo's
/// `target/release/`: a directory laid out that way, with target/release being this
/// run's library directory.
#[test]
fn readme_c_lines_link_static_and_shared() {
    if !have("cc", "--version") {
        return;
    }
    let lines: Vec<String> = readme_cc_lines()
        .into_iter()
        .filter(|l| !l.contains("pkg-config"))
        .collect();
    assert!(
        lines.iter().any(|l| l.contains("libkeel.a")) && lines.iter().any(|l| l.contains("-lkeel")),
        "bindings/cpp/README.md lost its static or shared cc line: {lines:?}"
    );
    for (i, line) in lines.iter().enumerate() {
        let dir = scratch(&format!("readme-{i}"));
        std::os::unix::fs::symlink(root().join("include"), dir.join("include")).unwrap();
        std::fs::create_dir(dir.join("target")).unwrap();
        std::os::unix::fs::symlink(library_dir(), dir.join("target/release")).unwrap();
        let app = build_and_run_app(line, &dir, &[]);
        if let Some(dynamic) = needed_libraries(&app) {
            assert_eq!(
                dynamic.contains("[libkeel.so]"),
                line.contains("-lkeel"),
                "{line} links the wrong library kind:\n{dynamic}"
            );
        }
    }
}

/// The README's pkg-config lines after `cmake --install` into a temporary prefix: the
/// static install, and the shared one with its rpath line.
#[test]
fn readme_pkg_config_lines_after_install() {
    if !have("cmake", "--version") || !have("cc", "--version") || !have("pkg-config", "--version") {
        return;
    }
    let lines: Vec<String> = readme_cc_lines()
        .into_iter()
        .filter(|l| l.contains("pkg-config"))
        .collect();
    let plain = lines
        .iter()
        .find(|l| !l.contains("rpath"))
        .expect("README: no plain pkg-config cc line");
    let with_rpath = lines
        .iter()
        .find(|l| l.contains("rpath"))
        .expect("README: no pkg-config cc line with an rpath");
    for (tag, line, prefix) in [
        ("pc-static", plain, static_prefix()),
        ("pc-shared", with_rpath, shared_prefix()),
    ] {
        let pkgconfig = prefix.join("lib/pkgconfig");
        let version = run(Command::new("pkg-config")
            .args(["--modversion", "keel"])
            .env("PKG_CONFIG_PATH", &pkgconfig));
        assert_eq!(stdout_of(&version).trim(), env!("CARGO_PKG_VERSION"));
        let app = build_and_run_app(line, &scratch(tag), &[("PKG_CONFIG_PATH", pkgconfig.as_path())]);
        if let Some(dynamic) = needed_libraries(&app) {
            assert_eq!(
                dynamic.contains("[libkeel.so]"),
                tag == "pc-shared",
                "{line}:\n{dynamic}"
            );
        }
    }
}

/// `cmake --install` puts the headers in include/keel/ (none loose in include/) and a
/// static library without the debug information and LTO bitcode cargo's copy carries
/// (KeelInstall.cmake): no .debug_* or .llvmbc section left, and far smaller.
#[test]
fn install_puts_the_headers_in_include_keel_and_strips_the_static_library() {
    if !have("cmake", "--version") || !have("readelf", "--version") {
        return;
    }
    let prefix = static_prefix();
    for header in ["keel.h", "keel.hpp"] {
        assert!(
            prefix.join("include/keel").join(header).is_file(),
            "include/keel/{header} missing"
        );
        assert!(
            !prefix.join("include").join(header).exists(),
            "include/{header} installed loose"
        );
    }
    let installed = prefix.join("lib/libkeel.a");
    let installed = if installed.is_file() {
        installed
    } else {
        prefix.join("lib64/libkeel.a")
    };
    let built = library_dir().join("libkeel.a");
    let size = |p: &Path| {
        std::fs::metadata(p)
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
            .len()
    };
    let sections = stdout_of(&run(Command::new("readelf").arg("-S").arg("-W").arg(&installed)));
    for section in [".debug_info", ".llvmbc"] {
        assert!(!sections.contains(section), "{section} left in {}", installed.display());
    }
    // What went: the built archive's debug and bitcode sections (with their relocations),
    // summed from readelf's table (the size is the sixth column of each section's row).
    let built_sections = stdout_of(&run(Command::new("readelf").arg("-S").arg("-W").arg(&built)));
    let removable: u64 = built_sections
        .lines()
        .filter_map(|l| {
            let row = l.split_once(']')?.1;
            let fields: Vec<&str> = row.split_whitespace().collect();
            let name = *fields.first()?;
            let gone = name.starts_with(".debug") || name.starts_with(".rela.debug") || name.starts_with(".llvmbc");
            gone.then(|| u64::from_str_radix(fields.get(4)?, 16).ok()).flatten()
        })
        .sum();
    assert!(
        size(&installed) + removable / 2 < size(&built),
        "stripping saved too little: {} bytes installed, {} built, {removable} of them debug information and bitcode",
        size(&installed),
        size(&built)
    );
}

/// find_package(keel) from an installed prefix, static and shared: the example
/// configures, builds and runs (briefly) against each.
#[test]
fn cpp_engine_builds_with_find_package_after_install() {
    if !have("cmake", "--version") || !have("c++", "--version") {
        return;
    }
    for (tag, prefix, shared) in [
        ("fp-static", static_prefix(), false),
        ("fp-shared", shared_prefix(), true),
    ] {
        let build = scratch(tag);
        cmake_configure(
            &root().join("examples/cpp_engine"),
            &build,
            &[
                "-DKEEL_USE_INSTALLED=ON".to_string(),
                format!("-DCMAKE_PREFIX_PATH={}", prefix.display()),
            ],
        );
        cmake_build(&build);
        let exe = build.join("cpp_engine");
        if let Some(dynamic) = needed_libraries(&exe) {
            assert_eq!(dynamic.contains("[libkeel.so]"), shared, "{tag}:\n{dynamic}");
        }
        let stdout = stdout_of(&run(Command::new(&exe).args(["--flat", "1", "--waves", "1"])));
        assert!(stdout.contains("physics sanity: OK"), "{tag}:\n{stdout}");
    }
}

/// Every function keel.h declares has its keel.hpp wrapper: a function added to the ABI
/// without one fails here (the wrapper is written by hand, unlike the header).
#[test]
fn keel_hpp_wraps_every_function_of_the_header() {
    let header = std::fs::read_to_string(root().join("include/keel.h")).expect("cannot read keel.h");
    let wrapper = std::fs::read_to_string(root().join("bindings/cpp/keel.hpp")).expect("cannot read keel.hpp");
    let declared: Vec<&str> = header
        .lines()
        .filter(|line| !line.starts_with("//") && !line.starts_with(' '))
        .filter_map(|line| {
            let start = line.find("keel_")?;
            let name = &line[start..line[start..].find('(')? + start];
            name.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_')
                .then_some(name)
        })
        .collect();
    assert!(declared.len() > 30, "too few functions found in keel.h: {declared:?}");
    let missing: Vec<&&str> = declared
        .iter()
        .filter(|name| !wrapper.contains(&format!("{name}(")))
        .collect();
    assert!(missing.is_empty(), "keel.hpp does not wrap {missing:?}");
}

/// The instructions `function` executed outside the library's `entry` point, from a
/// callgrind output file (`callgrind_out`, collected with `--toggle-collect` on the
/// function): its own lines and whatever else it called (the wrapper's helpers, had they
/// not been inlined, or any other function of the library); and `entry`'s share.
fn own_and_library_instructions(callgrind_out: &str, function: &str, entry: &str) -> (u64, u64) {
    let mut names: std::collections::HashMap<String, String> = std::collections::HashMap::new();
    let (mut current, mut callee): (Option<String>, Option<String>) = (None, None);
    let (mut own, mut library) = (0u64, 0u64);
    for line in callgrind_out.lines() {
        // `fn=(id) name` starts a function's block, `cfn=(id) name` names the callee of the
        // next `calls=` line, whose cost is on the line after it; names are given once,
        // then only their ids.
        let named = line
            .strip_prefix("fn=")
            .map(|rest| (true, rest))
            .or_else(|| line.strip_prefix("cfn=").map(|rest| (false, rest)));
        if let Some((is_function, rest)) = named {
            let name = match rest.split_once(' ') {
                Some((id, name)) => {
                    names.insert(id.to_string(), name.to_string());
                    name.to_string()
                }
                None => names.get(rest).cloned().unwrap_or_default(),
            };
            if is_function {
                current = Some(name);
                callee = None;
            } else {
                callee = Some(name);
            }
            continue;
        }
        if line.starts_with("calls=") || current.as_deref() != Some(function) {
            continue;
        }
        // A cost line: a position (a line number, maybe relative, or `*`) and the count.
        let mut fields = line.split_whitespace();
        let (Some(position), Some(count), None) = (fields.next(), fields.next(), fields.next()) else {
            continue;
        };
        let is_position = position == "*" || position.trim_start_matches(['+', '-']).parse::<u64>().is_ok();
        let Ok(count) = count.parse::<u64>() else {
            continue;
        };
        if !is_position {
            continue;
        }
        match callee.take() {
            Some(name) if name == entry => library += count,
            _ => own += count,
        }
    }
    (own, library)
}

/// issue 35: the C++ wrapper adds nothing to a step. `bindings/cpp/tests/wrapper_cost.cpp`
/// (built as a user's release build, -O2) steps the same bodies through the same states
/// by keel.h's functions and by keel.hpp's, each loop in a function of its own, and
/// callgrind counts the instructions each loop executed outside the library: the
/// wrapper's calls may add at most a few instructions a step (its status check) to the
/// C loop's, and nothing the library does (instruction counts, not times: the same on
/// every run).
#[test]
fn the_wrapper_adds_nothing_to_a_step() {
    if !have("c++", "--version") || !have("valgrind", "--version") {
        return;
    }
    let dir = scratch("wrapper-cost");
    let exe = dir.join("wrapper_cost");
    run(Command::new("c++")
        .args(["-std=c++17", "-O2", "-Wall", "-Wextra", "-pedantic", "-Werror"])
        .arg("-I")
        .arg(root().join("include"))
        .arg("-I")
        .arg(root().join("bindings/cpp"))
        .arg(root().join("bindings/cpp/tests/wrapper_cost.cpp"))
        .arg(library_dir().join("libkeel.a"))
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&exe));
    let plain = stdout_of(&run(&mut Command::new(&exe)));
    assert!(plain.contains("stepped 40 times each way"), "{plain}");

    const LOOPS: [(&str, &str); 4] = [
        ("cost_body_step_c", "keel_body_step"),
        ("cost_body_step_hpp", "keel_body_step"),
        ("cost_world_step_c", "keel_world_step"),
        ("cost_world_step_hpp", "keel_world_step"),
    ];
    let out = dir.join("callgrind.out");
    let mut command = Command::new("valgrind");
    command
        .arg("--tool=callgrind")
        .arg(format!("--callgrind-out-file={}", out.display()));
    for (name, _) in LOOPS {
        command.arg(format!("--toggle-collect={name}"));
    }
    run(command.arg(&exe));
    let counts = std::fs::read_to_string(&out).expect("callgrind wrote no output");
    let [c_body, hpp_body, c_world, hpp_world] =
        LOOPS.map(|(name, entry)| own_and_library_instructions(&counts, name, entry));
    let steps = 40;
    for (what, (c_own, c_library), (hpp_own, hpp_library)) in [
        ("Body::step against keel_body_step", c_body, hpp_body),
        ("World::step against keel_world_step (16 bodies)", c_world, hpp_world),
    ] {
        println!(
            "{what}: {:.1} against {:.1} instructions a call outside the library \
             (the library: {} and {} a call)",
            hpp_own as f64 / steps as f64,
            c_own as f64 / steps as f64,
            hpp_library / steps,
            c_library / steps
        );
        // The counts are read, not made up: each loop ran its calls and the library's step.
        assert!(
            c_own >= steps && hpp_own >= steps,
            "{what}: no loop instructions counted"
        );
        assert!(
            c_library > 1000 * steps && hpp_library > 1000 * steps,
            "{what}: no library step counted"
        );
        // The wrapper's status check, against the C loop's own: one instruction a call more
        // with g++ 12 -O2 (a call to even the cheapest function, keel_abi_version, adds 3).
        assert!(
            hpp_own <= c_own + 2 * steps,
            "{what}: the wrapper adds {:.1} instructions a call",
            (hpp_own as f64 - c_own as f64) / steps as f64
        );
    }
}
