/// The console's stylesheet: system fonts, one column on a phone, tables that scroll sideways
/// rather than squeeze.
enum ConsoleStylesheet {
    static let text = #"""
        :root { --ink: #1d2430; --muted: #5d6778; --line: #d9dee7; --back: #f5f7fa; --card: #fff;
          --accent: #2456c7; --good: #1b7f4b; --bad: #b3261e; --warn: #9a6200; --pale: #eef2f8; }
        * { box-sizing: border-box; }
        [hidden] { display: none !important; }
        body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--back); }
        a { color: var(--accent); }
        header.top { display: flex; flex-wrap: wrap; align-items: center; gap: .5rem 1.25rem; padding: .6rem 1.25rem;
          background: var(--ink); color: #fff; }
        header.top a { color: #fff; text-decoration: none; }
        .brand { font-weight: 700; letter-spacing: .02em; }
        header nav { display: flex; gap: 1rem; flex-wrap: wrap; }
        header nav a { opacity: .8; } header nav a[aria-current="page"] { opacity: 1; border-bottom: 2px solid #fff; }
        form.who { margin-left: auto; display: flex; gap: .6rem; align-items: center; font-size: .9em; opacity: .9; }
        main { max-width: 1180px; margin: 0 auto; padding: 1.25rem; }
        h1 { font-size: 1.45rem; margin: .2rem 0 1rem; } h2 { font-size: 1.1rem; margin: 1.5rem 0 .6rem; }
        .card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 1rem 1.1rem; margin-bottom: 1rem; }
        .scroll { overflow-x: auto; }
        table { border-collapse: collapse; width: 100%; background: var(--card); }
        th, td { text-align: left; padding: .45rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
        th { font-weight: 600; color: var(--muted); font-size: .85em; text-transform: uppercase; letter-spacing: .03em; }
        td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
        code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .9em; }
        pre { background: var(--pale); padding: .6rem; border-radius: 6px; white-space: pre-wrap; word-break: break-all; margin: .3rem 0; }
        .badge { display: inline-block; padding: .05rem .5rem; border-radius: 99px; font-size: .8em; font-weight: 600; background: var(--pale); }
        .badge.running, .badge.completed, .badge.accepted { background: #dff3e7; color: var(--good); }
        .badge.failed, .badge.cancelled { background: #fbe3e1; color: var(--bad); }
        .badge.paused, .badge.scheduled, .badge.skipped, .badge.deferred { background: #fdf0d5; color: var(--warn); }
        progress { width: 100%; height: .8rem; accent-color: var(--good); }
        .figures { display: grid; grid-template-columns: repeat(auto-fill, minmax(130px, 1fr)); gap: .6rem; margin: .8rem 0; }
        .figures div { background: var(--pale); border-radius: 6px; padding: .5rem .7rem; }
        .figures b { display: block; font-size: 1.25rem; font-variant-numeric: tabular-nums; }
        .figures span { color: var(--muted); font-size: .85em; }
        form.inline { display: inline; }
        form.inline select { width: auto; }
        button, .button { font: inherit; padding: .45rem .95rem; border-radius: 6px; border: 1px solid var(--accent);
          background: var(--accent); color: #fff; cursor: pointer; text-decoration: none; display: inline-block; }
        button.secondary, .button.secondary { background: #fff; color: var(--accent); }
        button.danger { background: #fff; color: var(--bad); border-color: var(--bad); }
        button.link { background: none; border: none; color: inherit; text-decoration: underline; padding: 0; }
        .actions { display: flex; flex-wrap: wrap; gap: .5rem; margin: .8rem 0; }
        label { display: block; font-weight: 600; margin: .7rem 0 .2rem; }
        label.check { display: inline-flex; gap: .35rem; font-weight: 400; margin-right: 1rem; }
        input[type=text], input[type=email], input[type=password], input[type=number], input[type=date], input[type=time],
        input[type=datetime-local], select, textarea { font: inherit; width: 100%; max-width: 36rem; padding: .4rem .5rem;
          border: 1px solid var(--line); border-radius: 6px; background: #fff; }
        textarea { min-height: 4.5rem; font-family: ui-monospace, Menlo, Consolas, monospace; font-size: .9em; }
        fieldset { border: 1px solid var(--line); border-radius: 8px; margin: 1rem 0; padding: .4rem 1rem 1rem; background: var(--card); }
        legend { font-weight: 700; padding: 0 .3rem; }
        .hint { color: var(--muted); font-size: .85em; margin: .15rem 0; }
        .error { color: var(--bad); font-size: .9em; margin: .2rem 0; font-weight: 600; }
        .notice { border-left: 4px solid var(--accent); background: #e8effc; padding: .6rem .9rem; border-radius: 4px; margin: 0 0 1rem; }
        .notice.bad { border-color: var(--bad); background: #fbe3e1; }
        .filters { display: flex; flex-wrap: wrap; gap: .6rem; align-items: end; margin-bottom: 1rem; }
        .filters label { margin: 0; } .filters select, .filters input { width: auto; }
        .grid2 { display: grid; grid-template-columns: repeat(auto-fit, minmax(300px, 1fr)); gap: 1rem; }
        .live { color: var(--good); font-size: .85em; } .live.lost { color: var(--bad); }
        .muted { color: var(--muted); }
        .bytes.over { color: var(--bad); font-weight: 700; }
        ul.plurals { margin: .2rem 0 .6rem; padding-left: 1.2rem; font-size: .9em; }
        svg.chart { width: 100%; height: auto; display: block; margin: .6rem 0; }
        svg.chart text { font: 11px system-ui, sans-serif; fill: var(--muted); }
        pre.diff { max-height: 28rem; overflow: auto; white-space: pre; word-break: normal; }
        pre.diff ins { background: #dff3e7; text-decoration: none; display: block; }
        pre.diff del { background: #fbe3e1; text-decoration: none; display: block; }
        pre.diff .same { color: var(--muted); display: block; }
        details summary { cursor: pointer; font-weight: 600; margin: .4rem 0; }
        .login { max-width: 380px; margin: 3rem auto; }
        .pager { margin: .8rem 0; display: flex; gap: 1rem; }
        .segment-builder { margin: .3rem 0 .6rem; }
        .segment-group { border: 1px solid var(--line, #d9dde3); border-left: 4px solid var(--accent); border-radius: 4px; padding: .5rem .6rem; margin: .4rem 0; }
        .segment-group .segment-group { background: rgba(0, 0, 0, .02); }
        .segment-head, .segment-add, .segment-condition { display: flex; flex-wrap: wrap; gap: .4rem; align-items: center; margin: .3rem 0; }
        .segment-condition input { width: auto; min-width: 8rem; flex: 1 1 8rem; }
        .segment-condition select, .segment-head select, .segment-add select { width: auto; }
        .segment-kind { font-weight: 600; min-width: 8rem; }
        .segment-label { color: var(--muted); font-size: .9em; }
        .notice.error { border-color: var(--bad); background: #fbe3e1; }
        .badge.state-active { background: #dff3e7; color: var(--good); }
        .badge.state-paused, .badge.state-draft { background: #fdf0d5; color: var(--warn); }
        .badge.state-archived { background: #eceef1; color: var(--muted); }
        textarea.code { max-width: 60rem; }
        .journey-drawing, .journey-preview { overflow-x: auto; margin: .6rem 0; }
        svg.journey-graph { display: block; max-width: none; }
        svg.journey-graph .step rect { fill: #fff; stroke: var(--accent); stroke-width: 1.5; }
        svg.journey-graph .step-send rect { fill: #eef4ff; }
        svg.journey-graph .step-wait rect, svg.journey-graph .step-waitFor rect { fill: #fdf6e6; stroke: var(--warn); }
        svg.journey-graph .step-branch rect, svg.journey-graph .step-split rect { fill: #f3eefc; stroke: #7a5cc2; }
        svg.journey-graph .step-exit rect { fill: #eceef1; stroke: var(--muted); }
        svg.journey-graph .step.marked rect { stroke: var(--bad); stroke-width: 3; }
        .journey-preview.stale svg .step:not(.marked), .journey-preview.stale svg .edge { opacity: .45; }
        svg.journey-graph text { font: 12px system-ui, sans-serif; fill: #222; }
        svg.journey-graph .step-id { font-weight: 700; }
        svg.journey-graph .step-kind, svg.journey-graph .edge-label { fill: var(--muted); font-size: 11px; }
        svg.journey-graph .edge { fill: none; stroke: #8a94a3; stroke-width: 1.4; }
        svg.journey-graph marker path { fill: #8a94a3; }
        dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .3rem 1rem; }
        dl.facts dt { font-weight: 600; } dl.facts dd { margin: 0; }
        @media (max-width: 640px) {
          main { padding: .8rem; } form.who { margin-left: 0; width: 100%; }
          th, td { padding: .35rem .4rem; } .hide-narrow { display: none; }
        }
        """#
}
