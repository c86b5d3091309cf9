#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Writes a Rust crate for `rustc -O -C codegen-units=4`: MODULES modules of
FUNCS small functions each, all reachable from main (so that none is dead
code and LLVM's codegen units are real work).  The default, 8 x 10, takes
about 2.4 s of CPU with rustc 1.95 here (docs/VALIDATION.md, "rustc"); the
cost grows faster than the count (40 x 40: about 55 s).

usage: rustc-cgu.py OUT.rs [MODULES [FUNCS]]"""
import sys


def crate(modules, funcs):
    out = []
    for m in range(modules):
        out.append('mod m%d {' % m)
        for f in range(funcs):
            out.append(
                '    #[inline(never)] pub fn f%d(a: u64, b: u64) -> u64 {\n'
                '        let mut s = a ^ %d;\n'
                '        for k in 0..(b %% 7 + 3) { s = s.wrapping_mul(31).wrapping_add(k * %d); '
                'if s %% 3 == 0 { s ^= s >> 7; } }\n'
                '        let v: Vec<u64> = (0..(a %% 5)).map(|x| x * s).collect();\n'
                '        s ^ v.iter().sum::<u64>()\n    }' % (f, f * 7 + m, f + 1))
        out.append('    pub fn all(a: u64) -> u64 { let mut s = 0u64;')
        for f in range(funcs):
            out.append('        s = s.wrapping_add(f%d(a, s));' % f)
        out.append('        s }\n}')
    out.append('fn main() {\n    let a: u64 = std::env::args().count() as u64;\n'
               '    let mut s = 0u64;')
    for m in range(modules):
        out.append('    s ^= m%d::all(a);' % m)
    out.append('    println!("{}", s);\n}')
    return '\n'.join(out) + '\n'


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    modules = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    funcs = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    with open(sys.argv[1], 'w') as f:
        f.write(crate(modules, funcs))


if __name__ == '__main__':
    main()
