// Prints the marshalled size of every struct of Keel.Native and the offset of each of its
// fields, one per line, in the format tests/unity.rs's C program prints for keel.h:
// "Struct size N" and "Struct.field N". The test compares both outputs line for line.
// SPDX-License-Identifier: MIT OR Apache-2.0
using System;
using System.Linq;
using System.Reflection;
using System.Runtime.InteropServices;

public static class LayoutDump
{
    public static int Main(string[] args)
    {
        Assembly runtime = Assembly.LoadFrom(args[0]);
        var structs = runtime.GetTypes()
            .Where(t => t.Namespace == "Keel.Native" && t.IsValueType && !t.IsEnum)
            .OrderBy(t => t.Name, StringComparer.Ordinal);
        foreach (Type t in structs)
        {
            Console.WriteLine(t.Name + " size " + Marshal.SizeOf(t));
            foreach (FieldInfo f in t.GetFields(BindingFlags.Instance | BindingFlags.Public | BindingFlags.NonPublic))
                Console.WriteLine(t.Name + "." + f.Name + " " + Marshal.OffsetOf(t, f.Name));
        }
        return 0;
    }
}
