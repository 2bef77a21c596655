// Stand-in for UnityEngine.Mesh, MeshFilter and MeshRenderer.
// SPDX-License-Identifier: MIT OR Apache-2.0
using System;
using System.Collections.Generic;

namespace UnityEngine
{
    public sealed class Mesh : Object
    {
        private Vector3[] m_Vertices = new Vector3[0];
        private int[] m_Triangles = new int[0];
        private Vector3[] m_Normals = new Vector3[0];
        private bool m_Readable = true;

        public Mesh() { name = ""; }

        public bool isReadable { get { return m_Readable; } }
        // Unity logs an error and returns nothing when a script reads an unreadable mesh.
        public Vector3[] vertices
        {
            get { if (!m_Readable) { NotReadable(); return new Vector3[0]; } return (Vector3[])m_Vertices.Clone(); }
            set { m_Vertices = (Vector3[])value.Clone(); }
        }
        public int[] triangles
        {
            get { if (!m_Readable) { NotReadable(); return new int[0]; } return (int[])m_Triangles.Clone(); }
            set { m_Triangles = (int[])value.Clone(); }
        }
        public Vector3[] normals { get { return (Vector3[])m_Normals.Clone(); } set { m_Normals = (Vector3[])value.Clone(); } }
        // Texture coordinates (channel 0): nothing here draws, but Unity stores and returns a copy.
        private Vector2[] m_Uv = new Vector2[0];
        public Vector2[] uv { get { return (Vector2[])m_Uv.Clone(); } set { m_Uv = (Vector2[])value.Clone(); } }
        public int vertexCount { get { return m_Vertices.Length; } }
        public Bounds bounds { get; set; }

        public void SetVertices(List<Vector3> inVertices) { m_Vertices = inVertices.ToArray(); }
        public void SetTriangles(List<int> triangles, int submesh) { m_Triangles = triangles.ToArray(); }
        public void SetTriangles(int[] triangles, int submesh) { m_Triangles = (int[])triangles.Clone(); }
        public void Clear() { m_Vertices = new Vector3[0]; m_Triangles = new int[0]; m_Normals = new Vector3[0]; m_Uv = new Vector2[0]; }
        public void MarkDynamic() { }
        public void RecalculateNormals() { }
        public void RecalculateBounds()
        {
            if (m_Vertices.Length == 0) { bounds = new Bounds(); return; }
            Vector3 lo = m_Vertices[0], hi = m_Vertices[0];
            foreach (Vector3 v in m_Vertices) { lo = Vector3.Min(lo, v); hi = Vector3.Max(hi, v); }
            bounds = new Bounds((lo + hi) * 0.5f, hi - lo);
        }
        internal Mesh Copy()
        {
            var copy = new Mesh { name = name + " Instance" };
            copy.m_Vertices = (Vector3[])m_Vertices.Clone();
            copy.m_Triangles = (int[])m_Triangles.Clone();
            copy.m_Normals = (Vector3[])m_Normals.Clone();
            copy.m_Uv = (Vector2[])m_Uv.Clone();
            copy.m_Readable = m_Readable;
            copy.bounds = bounds;
            return copy;
        }

        public void UploadMeshData(bool markNoLongerReadable) { if (markNoLongerReadable) m_Readable = false; }

        private void NotReadable()
        {
            Debug.LogError("Not allowed to access vertices on mesh '" + name + "' (isReadable is false; Read/Write must be enabled in import settings)");
        }

        // Unity's built-in plane: 10 m x 10 m in XZ, 11 x 11 vertices, facing up.
        internal static Mesh CreatePlane()
        {
            var verts = new List<Vector3>();
            var tris = new List<int>();
            for (int iz = 0; iz <= 10; iz++)
                for (int ix = 0; ix <= 10; ix++) verts.Add(new Vector3(ix - 5f, 0f, iz - 5f));
            for (int iz = 0; iz < 10; iz++)
                for (int ix = 0; ix < 10; ix++)
                {
                    int a = iz * 11 + ix;
                    // cross(b - a, c - a) = cross(+z, +x) = +y: up.
                    tris.AddRange(new[] { a, a + 11, a + 1, a + 1, a + 11, a + 12 });
                }
            var mesh = new Mesh { name = "Plane" };
            mesh.SetVertices(verts);
            mesh.SetTriangles(tris, 0);
            mesh.RecalculateBounds();
            return mesh;
        }

        // Unity's built-in cube: 1 m, centred, 24 vertices (split at the hard edges),
        // triangles facing out the way Unity winds them (clockwise seen from outside,
        // i.e. cross(b - a, c - a) points out).
        internal static Mesh CreateCube()
        {
            var verts = new List<Vector3>();
            var tris = new List<int>();
            Vector3[] normals = { Vector3.right, Vector3.left, Vector3.up, Vector3.down, Vector3.forward, Vector3.back };
            foreach (Vector3 n in normals)
            {
                Vector3 u = Mathf.Abs(n.y) > 0.5f ? Vector3.right : Vector3.up;
                Vector3 v = Vector3.Cross(n, u);
                int b = verts.Count;
                verts.Add((n - u - v) * 0.5f);
                verts.Add((n + u - v) * 0.5f);
                verts.Add((n + u + v) * 0.5f);
                verts.Add((n - u + v) * 0.5f);
                // cross(u, v) = cross(u, cross(n, u)) = n, so (0, 1, 2) faces out.
                tris.AddRange(new[] { b, b + 1, b + 2, b, b + 2, b + 3 });
            }
            var mesh = new Mesh { name = "Cube" };
            mesh.SetVertices(verts);
            mesh.SetTriangles(tris, 0);
            mesh.RecalculateBounds();
            return mesh;
        }
    }

    public sealed class MeshFilter : Component
    {
        private Mesh m_Mesh;
        private bool m_Instantiated;
        public Mesh sharedMesh { get { return m_Mesh; } set { m_Mesh = value; m_Instantiated = false; } }
        // Unity's .mesh instantiates a copy of the shared mesh on first access, so that
        // editing it never touches other objects' (or the asset's) mesh.
        public Mesh mesh
        {
            get
            {
                if (m_Mesh != null && !m_Instantiated) { m_Mesh = m_Mesh.Copy(); m_Instantiated = true; }
                return m_Mesh;
            }
            set { m_Mesh = value; m_Instantiated = true; }
        }
    }

    public class Renderer : Component
    {
        public bool enabled = true;
        public Material sharedMaterial;
    }
    public sealed class MeshRenderer : Renderer { }
    public class Material : Object { public Color color; public Material(Shader s) { } }
    public class Shader : Object
    {
        public static Shader Find(string name) { return new Shader(); }

        // Unity's global shader properties: one value a name, read by every shader that
        // declares it and is not given its own; nothing draws here, so they are only kept.
        private static readonly Dictionary<string, float> s_GlobalFloats = new Dictionary<string, float>();
        public static void SetGlobalFloat(string name, float value) { s_GlobalFloats[name] = value; }
        public static float GetGlobalFloat(string name) { float v; return s_GlobalFloats.TryGetValue(name, out v) ? v : 0f; }
    }
}

namespace UnityEngine
{
    public class TextAsset : Object
    {
        public TextAsset(string text) { this.text = text; }
        public string text { get; private set; }
    }
}
