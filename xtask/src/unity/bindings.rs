//! The C# P/Invoke declarations, generated from `include/keel.h`.
//!
//! cbindgen writes the header in a small regular subset of C (one declaration per
//! statement, one field per line), so a line parser is enough and keeps the bindings a
//! pure function of the header: `cargo xtask unity --bindings` rewrites them and
//! `tests/unity.rs` fails when the committed file differs from what this produces.
//! Structs holding a `bool` are not blittable, so they travel by `ref`/`out` (the
//! marshaller honours `[MarshalAs(UnmanagedType.U1)]`); every other pointer is a raw
//! pointer, so that arrays pass without copies or allocations.

/// One parsed C declaration of the header.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    Const {
        name: String,
        value: String,
        doc: Vec<String>,
    },
    Enum {
        name: String,
        variants: Vec<(String, String, Vec<String>)>,
        doc: Vec<String>,
    },
    Struct {
        name: String,
        fields: Vec<Field>,
        doc: Vec<String>,
    },
    Alias {
        name: String,
        target: String,
        doc: Vec<String>,
    },
    Callback {
        name: String,
        /// `void`, or a pointer type (`void *`).
        ret: String,
        params: Vec<Field>,
        doc: Vec<String>,
    },
    Function {
        name: String,
        ret: String,
        params: Vec<Field>,
        doc: Vec<String>,
    },
}

/// A struct field or a parameter: its C type as written (`const struct KeelVec3 *`) and name.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub ctype: String,
    pub name: String,
    pub doc: Vec<String>,
}

/// Parses the header into its declarations, in order.
pub fn parse_header(text: &str) -> Result<Vec<Item>, String> {
    let mut items = Vec::new();
    let mut doc: Vec<String> = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim();
        i += 1;
        if let Some(comment) = line.strip_prefix("//") {
            if !line.starts_with("// extern") && !line.starts_with("//  ") {
                doc.push(comment.trim().to_string());
            }
            continue;
        }
        if line.is_empty() || line.starts_with('#') && !line.starts_with("#define KEEL_") {
            if line.is_empty() {
                doc.clear();
            }
            continue;
        }
        if line == "#define KEEL_H" {
            continue;
        }
        if let Some(rest) = line.strip_prefix("#define ") {
            let (name, value) = rest.split_once(' ').ok_or_else(|| format!("bad define: {line}"))?;
            items.push(Item::Const {
                name: name.into(),
                value: value.trim().into(),
                doc: take(&mut doc),
            });
            continue;
        }
        if line.starts_with("/*") || line.starts_with('*') || line.starts_with("extern") || line.starts_with('}') {
            continue;
        }
        // Gather one statement up to its closing ';' at brace depth 0.
        let mut stmt = line.to_string();
        let mut body: Vec<(String, Vec<String>)> = Vec::new();
        let mut inner_doc = Vec::new();
        if stmt.ends_with('{') {
            while i < lines.len() {
                let l = lines[i].trim();
                i += 1;
                if let Some(c) = l.strip_prefix("//") {
                    inner_doc.push(c.trim().to_string());
                } else if l.starts_with('}') {
                    stmt.push(' ');
                    stmt.push_str(l);
                    break;
                } else if !l.is_empty() {
                    body.push((l.to_string(), take(&mut inner_doc)));
                }
            }
        } else {
            while !stmt.ends_with(';') && i < lines.len() {
                stmt.push(' ');
                stmt.push_str(lines[i].trim());
                i += 1;
            }
        }
        items.push(parse_statement(&stmt, &body, take(&mut doc))?);
    }
    Ok(items)
}

fn take(doc: &mut Vec<String>) -> Vec<String> {
    std::mem::take(doc)
}

fn parse_statement(stmt: &str, body: &[(String, Vec<String>)], doc: Vec<String>) -> Result<Item, String> {
    let closing_name = || {
        stmt.rsplit('}')
            .next()
            .map(|s| s.trim().trim_end_matches(';').trim().to_string())
            .unwrap_or_default()
    };
    if stmt.starts_with("typedef enum") {
        let mut variants = Vec::new();
        for (l, d) in body {
            let l = l.trim_end_matches(',');
            let (n, v) = l
                .split_once('=')
                .ok_or_else(|| format!("enum variant without value: {l}"))?;
            variants.push((n.trim().to_string(), v.trim().to_string(), d.clone()));
        }
        return Ok(Item::Enum {
            name: closing_name(),
            variants,
            doc,
        });
    }
    if stmt.starts_with("typedef struct") {
        let mut fields = Vec::new();
        for (l, d) in body {
            let l = l.trim_end_matches(';');
            // `float x, y;` declares several fields of one type.
            let (ty, names) = split_type_and_name(l.split(',').next().unwrap_or(l))?;
            fields.push(Field {
                ctype: ty.clone(),
                name: names,
                doc: d.clone(),
            });
            for extra in l.split(',').skip(1) {
                fields.push(Field {
                    ctype: ty.clone(),
                    name: extra.trim().to_string(),
                    doc: Vec::new(),
                });
            }
        }
        return Ok(Item::Struct {
            name: closing_name(),
            fields,
            doc,
        });
    }
    if let Some(rest) = stmt.strip_prefix("typedef ") {
        if let Some(open) = rest.find("(*") {
            let close = rest[open..].find(')').ok_or("bad callback typedef")? + open;
            let name = rest[open + 2..close].to_string();
            let ret = rest[..open].trim().to_string();
            let params = parse_params(&rest[close + 1..])?;
            return Ok(Item::Callback { name, ret, params, doc });
        }
        let (target, name) = split_type_and_name(rest.trim_end_matches(';'))?;
        return Ok(Item::Alias { name, target, doc });
    }
    let open = stmt
        .find('(')
        .ok_or_else(|| format!("unrecognised statement: {stmt}"))?;
    let (ret, name) = split_type_and_name(&stmt[..open])?;
    Ok(Item::Function {
        name,
        ret,
        params: parse_params(&stmt[open..])?,
        doc,
    })
}

/// `(int a, const char *b);` into fields; `(void)` is no parameter.
fn parse_params(text: &str) -> Result<Vec<Field>, String> {
    let inner = text.trim().trim_end_matches(';').trim();
    let inner = inner
        .strip_prefix('(')
        .and_then(|s| s.strip_suffix(')'))
        .ok_or("bad parameter list")?;
    if inner.trim() == "void" {
        return Ok(Vec::new());
    }
    inner
        .split(',')
        .map(|p| {
            split_type_and_name(p).map(|(ctype, name)| Field {
                ctype,
                name,
                doc: Vec::new(),
            })
        })
        .collect()
}

/// `const struct KeelVec3 *points` into ("const struct KeelVec3 *", "points").
fn split_type_and_name(decl: &str) -> Result<(String, String), String> {
    let decl = decl.trim();
    let cut = decl.rfind([' ', '*']).ok_or_else(|| format!("no name in `{decl}`"))?;
    let ty = decl[..=cut].trim();
    let name = decl[cut + 1..].trim();
    let ty = if ty.ends_with('*') {
        format!("{} *", ty.trim_end_matches('*').trim())
    } else {
        ty.to_string()
    };
    Ok((ty, name.to_string()))
}

/// Struct names whose layout the marshaller must translate (they hold a `bool`).
fn non_blittable(items: &[Item]) -> Vec<String> {
    items
        .iter()
        .filter_map(|it| match it {
            Item::Struct { name, fields, .. } if fields.iter().any(|f| f.ctype == "bool") => Some(name.clone()),
            _ => None,
        })
        .collect()
}

/// The C# type of a C value type (no pointer).
fn cs_value(ctype: &str, items: &[Item]) -> Result<String, String> {
    let bare = ctype
        .trim_start_matches("const ")
        .trim_start_matches("struct ")
        .trim_start_matches("enum ");
    Ok(match bare {
        "float" => "float".into(),
        "double" => "double".into(),
        "uint8_t" => "byte".into(),
        "uint32_t" => "uint".into(),
        "int32_t" => "int".into(),
        "uint64_t" => "ulong".into(),
        "size_t" => "UIntPtr".into(),
        "bool" => "bool".into(),
        "void" => "void".into(),
        "char" => "byte".into(),
        other => {
            let alias = items.iter().find_map(|it| match it {
                Item::Alias { name, target, .. } if name == other => Some(target.clone()),
                _ => None,
            });
            match alias {
                Some(target) => cs_value(&target, items)?,
                None if items.iter().any(|it| matches!(it, Item::Struct { name, .. } | Item::Enum { name, .. } | Item::Callback { name, .. } if name == other)) => {
                    other.to_string()
                }
                None => return Err(format!("no C# type for C type `{ctype}`")),
            }
        }
    })
}

/// The C# type of a parameter, with `ref`/`out` for non-blittable structs.
fn cs_param(field: &Field, items: &[Item], special: &[String]) -> Result<String, String> {
    let Some(pointee) = field.ctype.strip_suffix(" *") else {
        return cs_value(&field.ctype, items);
    };
    let bare = pointee.trim_start_matches("const ").trim_start_matches("struct ");
    if special.iter().any(|s| s == bare) {
        let mode = if pointee.starts_with("const") {
            "ref"
        } else if field.name.starts_with("out_") {
            "out"
        } else {
            "ref"
        };
        return Ok(format!("{mode} {bare}"));
    }
    if bare == "void" {
        return Ok("IntPtr".into());
    }
    Ok(format!("{}*", cs_value(pointee, items)?))
}

/// A C name as a C# identifier (`out` is a keyword there).
fn ident(name: &str) -> String {
    match name {
        "out" | "ref" | "in" | "params" | "object" | "string" | "base" | "fixed" | "lock" | "event" | "checked" => {
            format!("@{name}")
        }
        _ => name.to_string(),
    }
}

fn doc_lines(out: &mut String, indent: &str, doc: &[String]) {
    if doc.is_empty() {
        return;
    }
    out.push_str(&format!("{indent}/// <summary>\n"));
    for line in doc {
        let escaped = line.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
        out.push_str(&format!("{indent}/// {escaped}\n"));
    }
    out.push_str(&format!("{indent}/// </summary>\n"));
}

/// The whole C# file for the parsed header.
pub fn generate_csharp(items: &[Item]) -> Result<String, String> {
    let special = non_blittable(items);
    let mut types = String::new();
    let mut consts = String::new();
    let mut funcs = String::new();
    for item in items {
        match item {
            Item::Const { name, value, doc } => {
                doc_lines(&mut consts, "        ", doc);
                consts.push_str(&format!("        public const uint {name} = {value};\n"));
            }
            Item::Enum { name, variants, doc } => {
                doc_lines(&mut types, "    ", doc);
                types.push_str(&format!("    public enum {name} : int\n    {{\n"));
                for (n, v, d) in variants {
                    doc_lines(&mut types, "        ", d);
                    types.push_str(&format!("        {n} = {v},\n"));
                }
                types.push_str("    }\n\n");
            }
            Item::Struct { name, fields, doc } => {
                doc_lines(&mut types, "    ", doc);
                types.push_str(&format!(
                    "    [StructLayout(LayoutKind.Sequential)]\n    public unsafe struct {name}\n    {{\n"
                ));
                for f in fields {
                    doc_lines(&mut types, "        ", &f.doc);
                    if f.ctype == "bool" {
                        types.push_str("        [MarshalAs(UnmanagedType.U1)]\n");
                    }
                    // (A function pointer in a struct is an IntPtr, which keeps the struct
                    // blittable: the host passes Marshal.GetFunctionPointerForDelegate.)
                    let callback = items
                        .iter()
                        .any(|it| matches!(it, Item::Callback { name, .. } if *name == f.ctype));
                    let ty = match f.ctype.strip_suffix(" *") {
                        _ if callback => "IntPtr".to_string(),
                        Some(p) => format!("{}*", cs_value(p, items)?),
                        None => cs_value(&f.ctype, items)?,
                    };
                    types.push_str(&format!("        public {ty} {};\n", f.name));
                }
                types.push_str("    }\n\n");
            }
            Item::Alias { .. } => {}
            Item::Callback { name, ret, params, doc } => {
                doc_lines(&mut types, "    ", doc);
                let ret_cs = if ret.ends_with('*') { "IntPtr" } else { "void" };
                let ps: Result<Vec<String>, String> = params
                    .iter()
                    .map(|p| Ok(format!("{} {}", cs_param(p, items, &special)?, ident(&p.name))))
                    .collect();
                types.push_str(&format!(
                    "    [UnmanagedFunctionPointer(CallingConvention.Cdecl)]\n    public unsafe delegate {ret_cs} {name}({});\n\n",
                    ps?.join(", ")
                ));
            }
            Item::Function { name, ret, params, doc } => {
                doc_lines(&mut funcs, "        ", doc);
                let ret_cs = if ret.ends_with('*') {
                    "IntPtr".to_string()
                } else {
                    cs_value(ret, items)?
                };
                let ps: Result<Vec<String>, String> = params
                    .iter()
                    .map(|p| Ok(format!("{} {}", cs_param(p, items, &special)?, ident(&p.name))))
                    .collect();
                funcs.push_str(&format!(
                    "        [DllImport(Lib, EntryPoint = \"{name}\", CallingConvention = CallingConvention.Cdecl)]\n        public static extern {ret_cs} {name}({});\n\n",
                    ps?.join(", ")
                ));
            }
        }
    }
    Ok(format!(
        "// <auto-generated>\n\
         // Generated by `cargo xtask unity --bindings` from include/keel.h; do not edit.\n\
         // tests/unity.rs fails when this file and the header disagree.\n\
         // SPDX-License-Identifier: MIT OR Apache-2.0\n\
         // </auto-generated>\n\
         using System;\n\
         using System.Runtime.InteropServices;\n\n\
         namespace Keel.Native\n{{\n{types}    /// <summary>The functions and constants of keel.h.</summary>\n\
         public static unsafe partial class KeelNative\n    {{\n\
         #if (UNITY_IOS || UNITY_WEBGL) && !UNITY_EDITOR\n        public const string Lib = \"__Internal\";\n\
         #else\n        public const string Lib = \"keel\";\n#endif\n\n{consts}\n{}    }}\n}}\n",
        funcs.trim_end_matches('\n').to_string() + "\n"
    ))
}

/// The struct names with their fields' names, for the layout check's C side.
#[allow(dead_code)] // only tests/unity.rs, which includes this file, calls it
pub fn struct_fields(items: &[Item]) -> Vec<(String, Vec<String>)> {
    items
        .iter()
        .filter_map(|it| match it {
            Item::Struct { name, fields, .. } => Some((name.clone(), fields.iter().map(|f| f.name.clone()).collect())),
            _ => None,
        })
        .collect()
}
