"""Build glue for the one C extension: the offsets-log codec's compiled walker.

Optional: where no C compiler is at hand the install goes on and kgroup reads
the offsets log with the same reader compiled to Python (slower, same output).
Everything else about the package is in pyproject.toml.
"""
from setuptools import Extension, setup

setup(ext_modules=[Extension("kgroup.kmsg._walk", ["kgroup/kmsg/_walk.c"], optional=True,
                             extra_compile_args=["-O2"])])
