// A minimal OBJ reader (v and f lines, polygons fanned) for the sample's Stanford bunny,
// shipped as a TextAsset so that the sample needs no model importer settings.
// SPDX-License-Identifier: MIT OR Apache-2.0
using System.Collections.Generic;
using System.Globalization;
using UnityEngine;

namespace Keel.Samples
{
    public static class ObjMesh
    {
        /// <summary>Parses OBJ text into a readable Mesh, scaling positions by <paramref name="scale"/>.</summary>
        public static Mesh Parse(string text, float scale, string name)
        {
            var vertices = new List<Vector3>();
            var triangles = new List<int>();
            var face = new List<int>();
            foreach (string raw in text.Split('\n'))
            {
                string line = raw.Trim();
                if (line.StartsWith("v "))
                {
                    string[] p = line.Split(new[] { ' ' }, System.StringSplitOptions.RemoveEmptyEntries);
                    vertices.Add(new Vector3(Parse(p[1]), Parse(p[2]), Parse(p[3])) * scale);
                }
                else if (line.StartsWith("f "))
                {
                    face.Clear();
                    string[] p = line.Split(new[] { ' ' }, System.StringSplitOptions.RemoveEmptyEntries);
                    for (int i = 1; i < p.Length; i++) face.Add(int.Parse(p[i].Split('/')[0], CultureInfo.InvariantCulture) - 1);
                    // OBJ faces are counter-clockwise seen from outside (right-handed); Unity
                    // (and keel) take cross(b - a, c - a) as outward, the same normal, so the
                    // fan keeps the file's order.
                    for (int i = 1; i + 1 < face.Count; i++) { triangles.Add(face[0]); triangles.Add(face[i]); triangles.Add(face[i + 1]); }
                }
            }
            var mesh = new Mesh { name = name };
            mesh.SetVertices(vertices);
            mesh.SetTriangles(triangles, 0);
            mesh.RecalculateNormals();
            mesh.RecalculateBounds();
            return mesh;
        }

        private static float Parse(string s) { return float.Parse(s, CultureInfo.InvariantCulture); }
    }
}
