//! Meshes: OBJ files through tobj, and the demo's generated hulls.

use std::path::Path;

use glam::Vec3;

use crate::error::{CliError, Exit, Result};

/// A triangle mesh as a host passes it to keel.
#[derive(Clone, Debug, Default)]
pub struct Mesh {
    pub vertices: Vec<Vec3>,
    pub indices: Vec<u32>,
}

impl Mesh {
    /// The hull description. Either winding works: keel turns a closed mesh found inside
    /// out (and every hull the command line accepts is closed), so there is no option to
    /// flip it.
    pub fn desc(&self) -> keel::HullDesc<'_> {
        keel::HullDesc {
            vertices: &self.vertices,
            indices: &self.indices,
            flip_winding: false,
        }
    }

    pub fn scaled(mut self, scale: f32) -> Self {
        for v in &mut self.vertices {
            *v *= scale;
        }
        self
    }
}

/// Every object of an OBJ file as one mesh, polygons split into triangles. A file that
/// is missing or cannot be read is exit 3; one that is read but is not OBJ text (binary
/// bytes, a bad number) is exit 4.
pub fn load_obj(path: &Path) -> Result<Mesh> {
    if !path.is_file() {
        return Err(CliError::new(
            Exit::MissingFile,
            format!("no mesh file at {}", path.display()),
        ));
    }
    let bytes = std::fs::read(path)
        .map_err(|e| CliError::new(Exit::MissingFile, format!("cannot read {}: {e}", path.display())))?;
    // OBJ is text: tobj reports bytes that are not UTF-8 as a read error, which would
    // read as a missing file.
    let text = String::from_utf8(bytes).map_err(|e| {
        CliError::new(
            Exit::MalformedObj,
            format!(
                "{} is not an OBJ mesh: not text (byte {} is not UTF-8)",
                path.display(),
                e.utf8_error().valid_up_to()
            ),
        )
    })?;
    let mesh = parse_obj(&text).map_err(|e| {
        CliError::new(
            Exit::MalformedObj,
            format!("{} is not a readable OBJ mesh: {}", path.display(), e.message),
        )
    })?;
    if mesh.indices.is_empty() {
        return Err(CliError::new(
            Exit::NoTriangles,
            format!("{} has no triangles (no `f` lines)", path.display()),
        ));
    }
    Ok(mesh)
}

/// Parses an OBJ from text.
pub fn parse_obj(text: &str) -> Result<Mesh> {
    let options = tobj::LoadOptions {
        triangulate: true,
        ..Default::default()
    };
    let mut reader = std::io::BufReader::new(text.as_bytes());
    // Materials are not read: a hull needs only its shape (an `mtllib` line is ignored).
    let (models, _) = tobj::load_obj_buf(&mut reader, &options, |_| Err(tobj::LoadError::OpenFileFailed))
        .map_err(|e| CliError::new(Exit::MalformedObj, e.to_string()))?;
    let mut mesh = Mesh::default();
    for model in &models {
        let base = mesh.vertices.len() as u32;
        let m = &model.mesh;
        mesh.vertices
            .extend(m.positions.chunks_exact(3).map(|p| Vec3::new(p[0], p[1], p[2])));
        mesh.indices.extend(m.indices.iter().map(|&i| base + i));
    }
    Ok(mesh)
}

/// Writes `mesh` as OBJ with its vertices mapped by `map`.
pub fn write_obj(path: &Path, mesh: &Mesh, map: impl Fn(Vec3) -> glam::DVec3) -> Result<()> {
    use std::fmt::Write as _;
    let mut text = String::from("# written by `keel`\n");
    for &v in &mesh.vertices {
        let p = map(v);
        let _ = writeln!(text, "v {} {} {}", p.x, p.y, p.z);
    }
    for t in mesh.indices.chunks_exact(3) {
        let _ = writeln!(text, "f {} {} {}", t[0] + 1, t[1] + 1, t[2] + 1);
    }
    std::fs::write(path, text).map_err(|e| CliError::output(path, e))
}

/// The Stanford bunny the test suite floats (public domain; `tests/meshes/README.md`).
pub fn bunny(scale: f32) -> Result<Mesh> {
    let mesh = parse_obj(include_str!("../../tests/meshes/bunny.obj"))
        .map_err(|e| CliError::new(Exit::MalformedObj, format!("embedded bunny: {}", e.message)))?;
    Ok(mesh.scaled(scale))
}

/// A box of full extents `size` centred on the origin.
pub fn cuboid(size: Vec3) -> Mesh {
    let (vertices, indices) = keel::hull::box_mesh(size);
    Mesh { vertices, indices }
}

/// A boat-like closed hull of 24 stations of 12 segments ([`keel::hull::boat_mesh`]).
pub fn boat(length: f32, beam: f32, depth: f32, freeboard: f32) -> Mesh {
    let (vertices, indices) = keel::hull::boat_mesh(length, beam, depth, freeboard, 24, 12);
    Mesh { vertices, indices }
}
