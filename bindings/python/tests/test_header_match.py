"""The binding against the header it wraps: constants, struct layouts and the
function list must match, and any difference is printed by name.

The header is parsed for its enum constants, numeric macros, struct fields and
function prototypes; a C program compiled against it prints each constant's
value and each field's offset and size (so the compiler, not this parser,
decides the layout). Adding a function or field to the header without its one
line in the binding fails here, saying which.
"""
import ctypes
import os
import re
import subprocess
import sysconfig

import pytest

from lazyimg import _library, _structs, constants

HEADER = os.path.join(os.path.dirname(__file__), "..", "..", "..", "include", "lazyimg.h")
STRUCTS = {"lazyimg_config": _structs.ConfigStruct, "lazyimg_event": _structs.EventStruct,
           "lazyimg_stats": _structs.StatsStruct}


def header_text():
    with open(HEADER) as f:
        text = f.read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def header_enums(text):
    """{c enum type: [constant names]}"""
    return {name: re.findall(r"\b(LAZYIMG_[A-Z0-9_]+)\s*=", body)
            for body, name in re.findall(r"typedef\s+enum\s+\w+\s*\{(.*?)\}\s*(\w+)\s*;", text, re.S)}


def header_macros(text):
    return re.findall(r"#define\s+(LAZYIMG_[A-Z0-9_]+)\s+-?\d+\b", text)


def header_struct_fields(text, name):
    body = re.search(r"typedef\s+struct\s+%s\s*\{(.*?)\}\s*%s\s*;" % (name, name), text, re.S).group(1)
    return [re.search(r"(\w+)\s*$", decl.strip()).group(1) for decl in body.split(";") if decl.strip()]


def header_functions(text):
    """{name: parameter count} for every prototype (typedefs left out)."""
    functions = {}
    for statement in text.split(";"):
        found = re.search(r"\b(lazyimg_\w+)\s*\(([^()]*)\)\s*$", statement)
        if found and not re.search(r"\btypedef\b", statement):
            params = found.group(2).strip()
            functions[found.group(1)] = 0 if params in ("", "void") else params.count(",") + 1
    return functions


def compiled_values(tmp_path, text):
    """Runs a C program printing 'name value' for each constant and
    'struct.field offset size' plus 'struct sizeof'."""
    lines = ['#include <stdio.h>', '#include <stddef.h>', '#include "lazyimg.h"', "int main(void) {"]
    names = [n for consts in header_enums(text).values() for n in consts] + header_macros(text)
    for n in names:
        lines.append(f'    printf("{n} %lld\\n", (long long)({n}));')
    for struct in STRUCTS:
        lines.append(f'    printf("{struct} %zu\\n", sizeof({struct}));')
        for field in header_struct_fields(text, struct):
            lines.append(f'    printf("{struct}.{field} %zu %zu\\n", offsetof({struct}, {field}), '
                         f'sizeof(((const {struct} *)0)->{field}));')
    lines += ["    return 0;", "}"]
    source = tmp_path / "layout.c"
    source.write_text("\n".join(lines) + "\n")
    program = tmp_path / "layout"
    cc = os.environ.get("CC", "cc")
    subprocess.run([cc, "-std=c99", "-I", os.path.dirname(HEADER), str(source), "-o", str(program)], check=True)
    out = subprocess.run([str(program)], check=True, capture_output=True, text=True).stdout
    return dict(line.split(" ", 1) for line in out.splitlines())


def report(differences):
    if differences:
        pytest.fail("the binding differs from include/lazyimg.h:\n  " + "\n  ".join(differences), pytrace=False)


def test_constants_match_the_header(tmp_path):
    text = header_text()
    values = compiled_values(tmp_path, text)
    differences = []
    by_c_name = {c_name: (enum_type, prefix) for enum_type, (c_name, prefix) in constants.C_ENUMS.items()}
    for c_name, names in header_enums(text).items():
        if c_name not in by_c_name:
            differences.append(f"enum {c_name}: no IntEnum in lazyimg/constants.py (C_ENUMS)")
            continue
        enum_type, prefix = by_c_name[c_name]
        for name in names:
            member = getattr(enum_type, name[len(prefix):], None) if name.startswith(prefix) else None
            if member is None:
                differences.append(f"{name} = {values[name]}: missing in {enum_type.__name__}")
            elif int(member) != int(values[name]):
                differences.append(f"{name}: {enum_type.__name__}.{member.name} is {int(member)}, header {values[name]}")
        for member in enum_type:
            if prefix + member.name not in names:
                differences.append(f"{enum_type.__name__}.{member.name}: not in the header's {c_name}")
    for c_name in set(by_c_name) - set(header_enums(text)):
        differences.append(f"C_ENUMS names {c_name}, which the header does not declare")
    macros = header_macros(text)
    for name in macros:
        short = name[len("LAZYIMG_"):]
        if short not in constants.C_MACROS:
            differences.append(f"#define {name} {values[name]}: missing in constants.py (C_MACROS)")
        elif getattr(constants, short) != int(values[name]):
            differences.append(f"{name}: constants.{short} is {getattr(constants, short)}, header {values[name]}")
    for short in constants.C_MACROS:
        if "LAZYIMG_" + short not in macros:
            differences.append(f"constants.{short}: no #define LAZYIMG_{short} in the header")
    report(differences)


def test_struct_layouts_match_the_header(tmp_path):
    text = header_text()
    values = compiled_values(tmp_path, text)
    differences = []
    for c_name, structure in STRUCTS.items():
        header_fields = header_struct_fields(text, c_name)
        binding_fields = [name for name, _ in structure._fields_]
        if header_fields != binding_fields:
            missing = [f for f in header_fields if f not in binding_fields]
            extra = [f for f in binding_fields if f not in header_fields]
            if missing or extra:
                differences.append(f"{c_name}: fields missing in the binding: {missing}; "
                                   f"in the binding, not in the header: {extra}")
            else:
                differences.append(f"{c_name}: field order: header {header_fields}, binding {binding_fields}")
        for field in header_fields:
            if field not in binding_fields:
                continue
            offset, size = map(int, values[f"{c_name}.{field}"].split())
            descriptor = getattr(structure, field)
            if (descriptor.offset, descriptor.size) != (offset, size):
                differences.append(f"{c_name}.{field}: binding offset {descriptor.offset} size {descriptor.size}, "
                                   f"header offset {offset} size {size}")
        if ctypes.sizeof(structure) != int(values[c_name]):
            differences.append(f"sizeof({c_name}): binding {ctypes.sizeof(structure)}, header {values[c_name]}")
    report(differences)


def test_every_function_is_declared_with_its_parameters():
    functions = header_functions(header_text())
    differences = []
    for name, count in functions.items():
        if name not in _library.PROTOTYPES:
            differences.append(f"{name}: declared in the header, not in _library.PROTOTYPES")
        elif len(_library.PROTOTYPES[name][1]) != count:
            differences.append(f"{name}: {count} parameters in the header, "
                               f"{len(_library.PROTOTYPES[name][1])} argtypes in the binding")
    for name in _library.PROTOTYPES:
        if name not in functions:
            differences.append(f"{name}: in _library.PROTOTYPES, not declared in the header")
    assert len(functions) >= 30, f"the header parser found only {sorted(functions)}"
    report(differences)


def test_the_c_extensions_function_types_are_the_headers(tmp_path):
    """lazyimg/_speedups.c declares the types of the functions it calls (it
    is built without the header, in an sdist); compiled against the header
    with -DLAZYIMG_CHECK_HEADER, any difference is an error."""
    include = sysconfig.get_paths()["include"]
    if not os.path.exists(os.path.join(include, "Python.h")):
        pytest.skip(f"no Python.h in {include} (python3-dev)")
    source = os.path.join(os.path.dirname(__file__), "..", "lazyimg", "_speedups.c")
    cc = os.environ.get("CC", "cc")
    compiled = subprocess.run([cc, "-std=c99", "-Wall", "-Wextra", "-Werror", "-fsyntax-only", "-DLAZYIMG_CHECK_HEADER",
                               "-I", os.path.dirname(HEADER), "-I", include, source], capture_output=True, text=True)
    assert compiled.returncode == 0, compiled.stderr
