"""dasim's analysis: figures and tables from results files, and the predicted-vs-measured loop.

One package with one command line, `python3 -m dasim_analysis COMMAND ...` (__main__.py lists the
commands). The scripts next to this folder (analysis/plot_scaleup.py, ...) are thin shims that
keep the paths `dasim run --plot`, the tests and the documentation call working.
"""
