"""Hydrostatics of a posed hull by capytaine, an independent implementation.

Usage: capytaine_check.py HULL.obj MASS GX GY GZ
HULL.obj is in keel's world axes (Y up, water at y = 0), as `keel hydrostatics
--export-obj` writes it; G is the centre of mass in the same axes. Capytaine's axes are
Z up with X along the length: (x, y, z)_capytaine = (z, x, y)_keel, a cyclic permutation
that keeps the triangles' winding. Prints JSON in keel's axes.
"""
import json
import sys

import numpy as np
import capytaine as cpt


def load_obj(path):
    vertices, faces = [], []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            if parts[0] == "v":
                x, y, z = map(float, parts[1:4])
                vertices.append((z, x, y))
            elif parts[0] == "f":
                idx = [int(p.split("/")[0]) - 1 for p in parts[1:]]
                for k in range(1, len(idx) - 1):
                    faces.append((idx[0], idx[k], idx[k + 1]))
    return np.array(vertices), np.array(faces)


def main():
    path, mass = sys.argv[1], float(sys.argv[2])
    gx, gy, gz = map(float, sys.argv[3:6])
    com = (gz, gx, gy)
    vertices, faces = load_obj(path)
    mesh = cpt.Mesh(vertices=vertices, faces=faces)
    body = cpt.FloatingBody(
        mesh=mesh,
        dofs=cpt.rigid_body_dofs(rotation_center=com),
        center_of_mass=com,
        mass=mass,
    )
    h = body.compute_hydrostatics(rho=1000.0, g=9.81)
    cb = h["center_of_buoyancy"]
    print(json.dumps({
        "volume": float(h["disp_volume"]),
        "center_of_buoyancy": [float(cb[1]), float(cb[2]), float(cb[0])],
        "waterplane_area": float(h["waterplane_area"]),
        "bm_t": float(h["transversal_metacentric_radius"]),
        "bm_l": float(h["longitudinal_metacentric_radius"]),
        "gm_t": float(h["transversal_metacentric_height"]),
        "gm_l": float(h["longitudinal_metacentric_height"]),
    }))


if __name__ == "__main__":
    main()
