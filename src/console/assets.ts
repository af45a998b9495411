/** The console's stylesheet, sent inline with the response's CSP nonce. No scripts: every control is a link or a plain form. */
export const consoleStylesheet = `
:root{color-scheme:light;--ink:#1d2330;--muted:#4a5263;--line:#c5cad3;--accent:#1a56b8;--error:#b00020;--ok:#116b2f;--bg:#f3f5f8}
*{box-sizing:border-box}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
body{margin:0;overflow-wrap:anywhere;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);background:var(--bg)}
.skip{position:absolute;left:-999px}.skip:focus{left:.5rem;top:.5rem;background:#fff;padding:.5rem;z-index:1}
header.bar{display:flex;flex-wrap:wrap;gap:.5rem 1.25rem;align-items:center;padding:.6rem 1rem;background:#fff;border-bottom:1px solid var(--line)}
header.bar .brand{font-weight:800;margin-right:auto}
header.bar nav ul{display:flex;flex-wrap:wrap;gap:.25rem 1rem;list-style:none;margin:0;padding:0}
header.bar .who{color:var(--muted);font-size:.9rem}
main{max-width:72rem;margin:1rem auto;padding:0 1rem}
main.wide{max-width:80rem}
main.narrow{max-width:26rem;margin:3rem auto;background:#fff;border:1px solid var(--line);border-radius:.75rem;padding:1.5rem}
h1{font-size:1.4rem;margin:.5rem 0 1rem}
h2{font-size:1.1rem;margin:1.5rem 0 .5rem}
section.card>h2:first-child{margin-top:0}
section.card{background:#fff;border:1px solid var(--line);border-radius:.6rem;padding:1rem;margin-bottom:1rem}
a{color:var(--accent)}
label{display:block;font-weight:600;margin-bottom:.2rem}
.hint{display:block;color:var(--muted);font-size:.85rem;margin-bottom:.2rem}
input,select,textarea{font:inherit;padding:.45rem .6rem;border:1px solid #767f8f;border-radius:.35rem;background:#fff;color:var(--ink);max-width:100%}
.field{margin-bottom:.8rem}
.stack input{width:100%}
.filters{display:grid;grid-template-columns:repeat(auto-fill,minmax(11rem,1fr));gap:.25rem 1rem;align-items:end}
.filters .wide{grid-column:1/-1}
.filters .wide input{width:100%}
button{font:inherit;cursor:pointer;padding:.5rem .9rem;border-radius:.4rem;border:1px solid var(--accent);background:var(--accent);color:#fff;font-weight:600}
button.quiet{background:#fff;color:var(--accent)}
header.bar form{margin:0}
input:focus,select:focus,button:focus,a:focus,textarea:focus{outline:3px solid #8bb4f7;outline-offset:1px}
.table-wrap{overflow-x:auto}
table{border-collapse:collapse;width:100%;background:#fff}
caption{text-align:left;font-weight:600;padding:.4rem 0}
th,td{text-align:left;padding:.4rem .6rem;border-bottom:1px solid var(--line);vertical-align:top;white-space:nowrap}
td.wrap{white-space:normal;word-break:break-word}
table.list td.amount,table.list th.amount{text-align:right}
table.list{table-layout:fixed}
table.list th,table.list td{overflow:hidden;text-overflow:ellipsis;padding:.4rem .45rem}
table.list td.status{white-space:normal;overflow-wrap:normal}
table.list th.amount{width:7.5rem}table.list th.status{width:9.5rem}table.list th.reference{width:17.5rem}table.list th.created{width:13.5rem}
table.list th.type,table.list th.method{width:8rem}
details.raw summary{margin:0;font-size:.85rem}
.confirm form{display:flex;flex-wrap:wrap;gap:1rem;align-items:center}
dl{display:grid;grid-template-columns:minmax(8rem,max-content) 1fr;gap:.2rem 1rem;margin:0}
dt{font-weight:600}dd{margin:0;word-break:break-word}
pre{margin:0;white-space:pre-wrap;word-break:break-word;font-size:.85rem}
.status-success{color:var(--ok);font-weight:600}
.outcome{display:inline-block;white-space:nowrap;font-size:.8rem;font-weight:600;padding:0 .4rem;border-radius:.3rem;background:var(--bg);border:1px solid var(--line)}
.outcome-disputed,.outcome-chargedBack{border-color:var(--error);color:var(--error)}.status-failed{color:var(--error);font-weight:600}
.notice{border:2px solid var(--ok);border-radius:.5rem;padding:.5rem .75rem;margin-bottom:1rem;background:#fff}
.problem{border:2px solid var(--error);border-radius:.5rem;padding:.5rem .75rem;margin-bottom:1rem;background:#fff;color:var(--error)}
.actions{display:flex;flex-wrap:wrap;gap:1rem}
.actions form{border:1px solid var(--line);border-radius:.5rem;padding:.75rem;flex:1 1 16rem}
.actions fieldset{border:0;margin:0;padding:0}.actions legend{padding:0;margin-bottom:.2rem}
.choices{display:flex;flex-wrap:wrap;gap:.5rem}
.pager{display:flex;gap:1rem;margin:1rem 0}
fieldset{border:1px solid var(--line);border-radius:.5rem;margin:0 0 .8rem;padding:.5rem .75rem}
legend{font-weight:600;padding:0 .25rem}
.check{display:flex;flex-wrap:wrap;gap:0 .5rem;align-items:baseline;margin:.25rem 0}
.check label{font-weight:400;margin:0}.check .hint{flex-basis:100%;margin-left:1.6rem}
.wide-input{width:100%}
code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.9em}
section.secret{border:2px solid var(--ok)}
.secret-value{display:block;padding:.5rem;background:var(--bg);border-radius:.35rem;word-break:break-all;user-select:all}
svg.chart{width:100%;height:auto;max-height:16rem;display:block}
svg.chart text{font-size:11px;fill:var(--muted)}
svg.chart .axis{stroke:#767f8f}svg.chart .grid{stroke:var(--line);stroke-dasharray:3 3}
svg.chart .bar{stroke:#fff;stroke-width:.5}
svg.chart .rate{fill:none;stroke:var(--ok);stroke-width:2}svg.chart .rate-dot{fill:var(--ok)}
.modes ul{display:flex;gap:0;list-style:none;margin:0 0 1rem;padding:0}
.modes a{display:block;padding:.35rem .9rem;border:1px solid var(--accent);text-decoration:none;font-weight:600}
.modes li:first-child a{border-radius:.4rem 0 0 .4rem}.modes li:last-child a{border-radius:0 .4rem .4rem 0;border-left:0}
.modes a[aria-current]{background:var(--accent);color:#fff}
.mode-label{display:inline-block;vertical-align:middle;font-size:.8rem;font-weight:700;padding:.1rem .5rem;border-radius:1rem;border:2px solid var(--muted);color:var(--muted)}
.mode-test{border-color:#8a4b00;color:#8a4b00;background:#fff4e0}
.legend{display:flex;flex-wrap:wrap;gap:.25rem 1rem;list-style:none;margin:.5rem 0;padding:0;color:var(--muted);font-size:.85rem}
svg.key{vertical-align:middle}
.key-rate{display:inline-block;width:.9rem;vertical-align:middle;border-top:2px solid var(--ok)}
details summary{cursor:pointer;color:var(--accent);margin:.5rem 0}
@media (max-width:40rem){dl{grid-template-columns:1fr}dt{margin-top:.4rem}main{padding:0 .5rem}table.list .more{display:none}table.list{table-layout:auto}table.list th{width:auto}table.list td{white-space:normal}}
`;
