// IL2CPP's rule for native callbacks, checked on compiled assemblies: every delegate of a
// type keel calls back through (a delegate type marked [UnmanagedFunctionPointer]) must be
// bound to a static method marked [MonoPInvokeCallback(typeof(ThatType))]; IL2CPP compiles
// only those into functions native code can call, and anything else crashes an iOS,
// Android or WebGL player at the first callback, while Mono in the editor runs it fine.
//
// Reads every method body's IL for ldftn / ldvirtftn followed by newobj of such a delegate
// (what a method group or lambda converted to a delegate compiles to) and prints each
// binding; exits 1 when one breaks the rule, 2 when nothing was found to check.
// Usage: mono CallbackCheck.exe [--expect-bindings N] Assembly.dll...
// SPDX-License-Identifier: MIT OR Apache-2.0
using System;
using System.Collections.Generic;
using System.Reflection;
using System.Runtime.InteropServices;

public static class CallbackCheck
{
    private const BindingFlags All = BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Static | BindingFlags.Instance | BindingFlags.DeclaredOnly;

    public static int Main(string[] args)
    {
        int expected = 1;
        var problems = new List<string>();
        int bindings = 0;
        for (int a = 0; a < args.Length; a++)
        {
            if (args[a] == "--expect-bindings") { expected = int.Parse(args[++a]); continue; }
            Assembly assembly = Assembly.LoadFrom(args[a]);
            foreach (Type type in Types(assembly))
            {
                var bodies = new List<MethodBase>();
                bodies.AddRange(type.GetMethods(All));
                bodies.AddRange(type.GetConstructors(All));
                foreach (MethodBase method in bodies) bindings += Check(method, problems);
            }
        }
        foreach (string p in problems) Console.WriteLine("error: " + p);
        Console.WriteLine("{0} callback binding(s) checked, {1} problem(s)", bindings, problems.Count);
        if (problems.Count > 0) return 1;
        return bindings >= expected ? 0 : 2;
    }

    private static IEnumerable<Type> Types(Assembly assembly)
    {
        try { return assembly.GetTypes(); }
        catch (ReflectionTypeLoadException e)
        {
            var loaded = new List<Type>();
            foreach (Type t in e.Types) if (t != null) loaded.Add(t);
            return loaded;
        }
    }

    /// Checks the callback bindings in one method body; returns how many it found.
    private static int Check(MethodBase method, List<string> problems)
    {
        MethodBody body;
        try { body = method.GetMethodBody(); } catch (Exception) { return 0; }
        if (body == null) return 0;
        byte[] il = body.GetILAsByteArray();
        int found = 0;
        for (int i = 0; i + 11 <= il.Length; i++)
        {
            // ldftn = FE 06 <token>, ldvirtftn = FE 07 <token>, then newobj = 73 <ctor token>.
            if (il[i] != 0xFE || (il[i + 1] != 0x06 && il[i + 1] != 0x07) || il[i + 6] != 0x73) continue;
            MethodBase target, ctor;
            try
            {
                target = method.Module.ResolveMethod(BitConverter.ToInt32(il, i + 2), Generic(method.DeclaringType), Generic(method));
                ctor = method.Module.ResolveMethod(BitConverter.ToInt32(il, i + 7), Generic(method.DeclaringType), Generic(method));
            }
            catch (Exception) { continue; }
            Type delegateType = ctor.DeclaringType;
            if (!(ctor is ConstructorInfo) || !typeof(Delegate).IsAssignableFrom(delegateType)) continue;
            if (delegateType.GetCustomAttributes(typeof(UnmanagedFunctionPointerAttribute), false).Length == 0) continue;
            found++;
            string where = method.DeclaringType.FullName + "." + method.Name;
            string what = target.DeclaringType.FullName + "." + target.Name;
            Console.WriteLine("{0} -> {1} ({2})", where, what, delegateType.Name);
            if (!target.IsStatic)
                problems.Add(where + " binds " + delegateType.Name + " to " + what + ", which is not static (IL2CPP cannot call it from native code)");
            if (!HasCallbackAttribute(target, delegateType))
                problems.Add(what + " is bound to " + delegateType.Name + " but lacks [MonoPInvokeCallback(typeof(" + delegateType.Name + "))]");
        }
        return found;
    }

    private static Type[] Generic(Type t) { return t != null && t.IsGenericType ? t.GetGenericArguments() : null; }

    private static Type[] Generic(MethodBase m) { return m.IsGenericMethod ? m.GetGenericArguments() : null; }

    /// By name, so that it accepts Unity's AOT.MonoPInvokeCallbackAttribute or any copy of it.
    private static bool HasCallbackAttribute(MethodBase method, Type delegateType)
    {
        foreach (CustomAttributeData data in CustomAttributeData.GetCustomAttributes(method))
        {
            if (data.Constructor.DeclaringType.Name != "MonoPInvokeCallbackAttribute") continue;
            foreach (CustomAttributeTypedArgument arg in data.ConstructorArguments)
                if (arg.Value as Type == delegateType) return true;
        }
        return false;
    }
}
