"""check_plot_title.py PLOT_PROFILE REPORT: prints the title plot_profile.py
gives REPORT (QPE parameters only when the report has them)."""
import importlib.util
import json
import sys

spec = importlib.util.spec_from_file_location("plot_profile", sys.argv[1])
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
print("title: " + mod.title_of(json.load(open(sys.argv[2])), sys.argv[2]))
