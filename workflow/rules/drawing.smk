"""Each figure drawn from its published table by a light rule of its own.

The computing rules publish a figure's table and sidecar (``published(..., drawing=...)``) and
never read the plotting package; the rule draw_<paper>_<name> calls the named plotting function
on the tables and the sidecar's drawing arguments. A plotting edit therefore reruns drawing rules
only: those whose plotting module it reaches.
"""

for _drawing in DRAWINGS:

    rule:
        name:
            f"draw_{_drawing['paper']}_{_drawing['name']}"
        input:
            tables=_drawing["tables"],
            sidecar=_drawing["sidecar"],
            code=script_code("draw.py", f"plotting/{_drawing['function'].split('.')[0]}.py"),
        output:
            png=(
                report(_drawing["png"], caption=f"../report/{_drawing['caption']}", category=_drawing["paper"])
                if _drawing["caption"]
                else _drawing["png"]
            ),
            pdf=_drawing["pdf"],
        log:
            f"{LOGS}/{_drawing['paper']}/draw/{_drawing['name']}.log",
        benchmark:
            f"{BENCHMARKS}/{_drawing['paper']}/draw/{_drawing['name']}.tsv"
        localrule: True
        conda:
            ENVIRONMENT
        params:
            drawing=_drawing["function"],
        message:
            f"draw {_drawing['png']} and its PDF with plotting.{_drawing['function']}"
        script:
            "../scripts/draw.py"
