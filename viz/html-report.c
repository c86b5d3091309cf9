/* SPDX-License-Identifier: MIT */
/* The HTML report: document skeleton, summary, function table, the script
 * (zoom/pan, tooltips, table sorting) and the style sheet.  The charts are
 * in html-gantt.c and html-plots.c. */
#include "viz/html-report.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/units.h"
#include "viz/html-util.h"

static const char style_sheet[] =
    "*{box-sizing:border-box}\n"
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI','DejaVu Sans',sans-serif;"
    "color:#1d232b;background:#eef1f5;margin:0}\n"
    "main{max-width:1340px;margin:0 auto;padding:18px 20px 40px}\n"
    "header h1{font-size:22px;margin:0 0 6px}\n"
    "dl.summary{display:flex;flex-wrap:wrap;gap:6px 26px;margin:8px 0 14px}\n"
    "dl.summary div{display:flex;gap:6px}dl.summary dt{color:#5b6573}"
    "dl.summary dd{margin:0;font-weight:600}\n"
    "section{background:#fff;border:1px solid #d6dbe2;border-radius:6px;padding:12px "
    "16px;"
    "margin:0 0 16px;overflow-x:auto}\n"
    "section h2{font-size:16px;margin:0 0 4px}\n"
    ".row{display:flex;gap:16px;flex-wrap:wrap}.row section.half{flex:1 1 640px}\n"
    ".note{color:#4f5967;margin:2px 0 8px;font-size:13px}.cap{font-style:italic}\n"
    ".warnings{background:#fff7e0;border:1px solid #e0b84c;border-radius:6px;"
    "padding:8px 14px;margin:0 0 14px;font-size:13px}.warnings ul{margin:4px 0 0;"
    "padding-left:18px}\n"
    ".controls{margin:4px 0 6px}.controls button{font:inherit;font-size:12px;"
    "margin-right:6px;padding:2px 10px;border:1px solid #aeb6c2;border-radius:4px;"
    "background:#f7f8fa;cursor:pointer}\n"
    ".controls span{color:#5b6573;font-size:12px;margin-left:8px}\n"
    "svg.chart{display:block;font-size:11px;user-select:none;width:100%;height:auto}\n"
    "#gantt-svg{cursor:grab}#gantt-svg.drag{cursor:grabbing}\n"
    ".grid{stroke:#e3e7ec;stroke-width:1}.frame{fill:none;stroke:#9aa4b1}\n"
    ".tick{text-anchor:middle;fill:#444}.ytick{text-anchor:end;fill:#444}\n"
    ".axislabel{text-anchor:middle;fill:#333;font-size:12px}\n"
    ".tlabel{text-anchor:end;fill:#222}.stripe{fill:#f5f7fa}\n"
    "#gantt-bars rect.e{stroke:#111;stroke-width:0.8;vector-effect:non-scaling-stroke}\n"
    "#gantt-bars rect.h{fill:url(#hatch);pointer-events:none}\n"
    "#gantt-bars rect:hover{fill-opacity:0.6}\n"
    "path.running{fill:#4e79a7;fill-opacity:0.85}path.runnable{fill:#f28e2b;"
    "fill-opacity:0.45}\n"
    ".pline{stroke:#c0392b;stroke-width:1.5;stroke-dasharray:6 4}"
    ".plabel{fill:#c0392b;text-anchor:end;font-weight:600}\n"
    "polyline.curve{fill:none;stroke-width:2}.linear{stroke:#999;stroke-dasharray:6 4}"
    ".bound{stroke:#222}.predicted{stroke:#2e6da4;fill:#2e6da4}"
    ".maximal{stroke:#222;stroke-dasharray:2 3;fill:#222}"
    ".idle{stroke:#59a14f;fill:#59a14f}.inflation{stroke:#b07aa1;fill:#b07aa1}"
    ".actual{stroke:#d62728;fill:#d62728;stroke-width:2.5}\n"
    "circle.predicted,circle.maximal,circle.idle,circle.inflation,circle.actual"
    "{stroke:none}\n"
    ".crossover line{stroke:#333;stroke-dasharray:4 3}.crossover circle{fill:none;"
    "stroke:#111;stroke-width:1.5}.crossover text{font-size:11px;fill:#111}\n"
    ".legend{display:flex;flex-wrap:wrap;gap:4px 14px;margin:6px 0;font-size:12px}\n"
    ".legend .lt{color:#5b6573}.legend "
    ".li{display:inline-flex;align-items:center;gap:5px}\n"
    ".sw{display:inline-block;width:14px;height:10px;border-radius:2px}\n"
    ".sw.ecpkey{height:12px;border:1.5px solid #111;background:#ddd}"
    ".sw.mkey{background:repeating-linear-gradient(45deg,#999 0 2px,#ddd 2px 4px)}\n"
    ".sw.running{background:#4e79a7}.sw.runnable{background:#f5c08f}"
    ".sw.pkey{height:0;border-top:2px dashed #c0392b}\n"
    "table{border-collapse:collapse;font-size:13px;width:100%}\n"
    "th,td{padding:3px 8px;border-bottom:1px solid #e5e8ec;text-align:right;"
    "white-space:nowrap}\n"
    "th{background:#f3f5f8;position:sticky;top:0}\n"
    "#functions th{cursor:pointer}#functions th:hover{background:#e4e9f0}\n"
    "th.asc::after{content:' \\25B2'}th.desc::after{content:' \\25BC'}\n"
    "td.name,th.name{text-align:left;white-space:normal;word-break:break-all;"
    "font-family:ui-monospace,'DejaVu Sans Mono',monospace;font-size:12px}\n"
    "table.small{width:auto;margin-top:6px;font-size:12px}table.small th,table.small "
    "td{padding:2px 6px}\n"
    "#tip{position:fixed;pointer-events:none;background:rgba(20,24,30,.93);color:#fff;"
    "padding:6px 9px;border-radius:4px;font-size:12px;white-space:pre-line;"
    "max-width:520px;display:none;z-index:10}\n"
    "footer{color:#6b7480;font-size:12px}\n";

/* Vanilla JavaScript.  It never builds markup from strings: names are read
 * from the DOM with textContent and written back the same way. */
static const char *const script[] = {
    "(function(){'use strict';\n",
    "function list(id){var o=document.getElementById(id);return "
    "o?Array.prototype.map.call(",
    "o.children,function(li){return li.textContent;}):[];}\n",
    "var fnames=list('fnames'),tnames=list('tnames');\n",
    "function fmt(ns){var a=Math.abs(ns);if(a<1e3)return ns.toFixed(0)+' ns';",
    "if(a<1e6)return +(ns/1e3).toPrecision(3)+' us';if(a<1e9)return "
    "+(ns/1e6).toPrecision(3)",
    "+' ms';return (ns/1e9).toFixed(3)+' s';}\n",
    "var tip=document.getElementById('tip');\n",
    "function showTip(e,text){tip.textContent=text;tip.style.display='block';",
    "var x=e.clientX+14,y=e.clientY+14;if(x+tip.offsetWidth>innerWidth)x=e.clientX-",
    "tip.offsetWidth-10;if(y+tip.offsetHeight>innerHeight)y=e.clientY-tip.offsetHeight-"
    "10;",
    "tip.style.left=x+'px';tip.style.top=y+'px';}\n",
    "function hideTip(){tip.style.display='none';}\n",
    "var svg=document.getElementById('gantt-svg');\n",
    "if(svg){\n",
    " var W=+svg.getAttribute('data-w'),T=+svg.getAttribute('data-tend'),LEFT=180;\n",
    " var "
    "bars=document.getElementById('gantt-bars'),prof=document.getElementById('prof-plot')"
    ";\n",
    " var marks=Array.prototype.slice.call(document.querySelectorAll('#gantt-marks "
    "use'));\n",
    " var markX=marks.map(function(m){return +m.getAttribute('data-x');});\n",
    " var "
    "axes=[document.getElementById('gantt-axis'),document.getElementById('prof-axis')];"
    "\n",
    " var geo=axes.map(function(g){if(!g)return null;var l=g.querySelector('line'),",
    "t=g.querySelector('text');return l&&t?[+l.getAttribute('y1'),+l.getAttribute('y2'),",
    "+t.getAttribute('y')]:null;});\n",
    " var k=1,x0=0,NS='http://www.w3.org/2000/svg';\n",
    " function ticks(lo,hi,n){var "
    "raw=(hi-lo)/n,mag=Math.pow(10,Math.floor(Math.log10(raw))),",
    "f=raw/mag,s=(f<1.5?1:f<3.5?2:f<7.5?5:10)*mag,out=[];for(var "
    "v=Math.ceil(lo/s-1e-9)*s;",
    "v<=hi+1e-9*s;v+=s)out.push(v);return out;}\n",
    " function drawAxis(i){var g=axes[i],p=geo[i];if(!g||!p)return;while(g.firstChild)",
    "g.removeChild(g.firstChild);var t0=x0/W*T,t1=(x0+W/k)/W*T;ticks(t0,t1,8).forEach(",
    "function(t){var "
    "x=(t/T*W-x0)*k,l=document.createElementNS(NS,'line');l.setAttribute(",
    "'class','grid');l.setAttribute('x1',x);l.setAttribute('x2',x);l.setAttribute('y1',p["
    "0]);",
    "l.setAttribute('y2',p[1]);g.appendChild(l);var "
    "tx=document.createElementNS(NS,'text');",
    "tx.setAttribute('class','tick');tx.setAttribute('x',x);tx.setAttribute('y',p[2]);",
    "tx.textContent=fmt(t);g.appendChild(tx);});}\n",
    " var info=document.getElementById('zinfo');\n",
    " function apply(){k=Math.max(1,Math.min(k,1e7));x0=Math.max(0,Math.min(x0,W-W/k));",
    "var tr='translate('+(-x0*k)+',0) scale('+k+',1)';bars.setAttribute('transform',tr);",
    "if(prof)prof.setAttribute('transform',tr);for(var i=0;i<marks.length;i++)",
    "marks[i].setAttribute('x',(markX[i]-x0)*k);drawAxis(0);drawAxis(1);",
    "if(info)info.textContent=k>1?'showing '+fmt(x0/W*T)+' \\u2013 '+fmt((x0+W/k)/W*T)+",
    "' (\\u00d7'+(+k.toPrecision(3))+')':'';}\n",
    " function sf(){var r=svg.getBoundingClientRect();return "
    "svg.viewBox.baseVal.width/r.width;}\n",
    " function zoomAt(px,f){var "
    "a=x0+px/k;k*=f;k=Math.max(1,Math.min(k,1e7));x0=a-px/k;apply();}\n",
    " svg.addEventListener('wheel',function(e){var r=svg.getBoundingClientRect(),",
    "px=(e.clientX-r.left)*sf()-LEFT;if(px<0||px>W)return;e.preventDefault();",
    "zoomAt(px,e.deltaY<0?1.25:0.8);},{passive:false});\n",
    " var "
    "drag=null;svg.addEventListener('mousedown',function(e){drag={x:e.clientX,x0:x0};",
    "svg.classList.add('drag');e.preventDefault();});\n",
    " window.addEventListener('mousemove',function(e){if(!drag)return;x0=drag.x0-",
    "(e.clientX-drag.x)*sf()/k;apply();});\n",
    " window.addEventListener('mouseup',function(){drag=null;svg.classList.remove('drag')"
    ";});\n",
    " document.getElementById('zin').onclick=function(){zoomAt(W/2,2);};\n",
    " document.getElementById('zout').onclick=function(){zoomAt(W/2,0.5);};\n",
    " document.getElementById('zreset').onclick=function(){k=1;x0=0;apply();};\n",
    " bars.addEventListener('mousemove',function(e){var "
    "d=e.target.getAttribute('data-s');",
    "if(!d||drag){hideTip();return;}var v=d.split(' ').map(Number),f=v[0],n=v[6];",
    "var lines=[f>=0&&f<fnames.length?fnames[f]:'(other function)',",
    "'thread: '+(tnames[v[7]]||('#'+v[7])),fmt(v[1])+' \\u2013 '+fmt(v[2])+",
    "'  ('+fmt(v[2]-v[1])+' at P)','CPU time: '+fmt(v[3])];",
    "if(n>1){lines.push('summary of '+n+' short segments');lines.push('mean ECP weight: "
    "'+v[4]+",
    "', max |weight|: '+v[5]);}else lines.push(v[4]!==0?'on the ECP, weight '+v[4]:",
    "'not on the ECP (weight 0)');showTip(e,lines.join('\\n'));});\n",
    " bars.addEventListener('mouseleave',hideTip);\n",
    /* A link to a time window: report.html#t=START_NS-END_NS. */
    " function fromHash(){var m=/^#t=([0-9.e+]+)-([0-9.e+]+)$/.exec(location.hash);"
    "if(!m||!(+m[2]>+m[1]))return;k=T/(+m[2]-+m[1]);x0=+m[1]/T*W;apply();}\n",
    " window.addEventListener('hashchange',fromHash);apply();fromHash();\n",
    "}\n",
    "var tab=document.getElementById('ftable');\n",
    "if(tab){var ths=tab.tHead.rows[0].cells,cur=-1,asc=false;\n"
    "Array.prototype.forEach.call(ths,function(th,i){th.addEventListener('click',"
    "function(){"
    "var "
    "text=th.getAttribute('data-t')==='text';if(cur===i)asc=!asc;else{cur=i;asc=text;}"
    "Array.prototype.forEach.call(ths,function(h){h.classList.remove('asc','desc');});"
    "th.classList.add(asc?'asc':'desc');var body=tab.tBodies[0],"
    "rows=Array.prototype.slice.call(body.rows);rows.sort(function(a,b){var x=a.cells[i],"
    "y=b.cells[i],c=text?x.textContent.localeCompare(y.textContent):"
    "(+x.getAttribute('data-v'))-(+y.getAttribute('data-v'));return asc?c:-c;});"
    "rows.forEach(function(r){body.appendChild(r);});});});}\n",
    /* Tests (and users' tools) can tell that the script ran to the end. */
    "document.documentElement.setAttribute('data-ecp-ready','1');\n",
    "})();\n",
    NULL,
};

static int validate(const struct ecp_html_report *r, struct ecp_error *err)
{
	if (r->processors == 0)
		return ecp_error_set(err, ECP_ERR_USAGE,
				     "HTML report: processors must be >= 1");
	for (size_t i = 0; i < r->row_count; i++)
		if (r->rows[i].function >= r->function_count)
			return ecp_error_set(
			    err, ECP_ERR_USAGE,
			    "HTML report: table row #%zu names function %u of %zu", i,
			    r->rows[i].function, r->function_count);
	const struct ecp_html_scan *s = r->scan;
	if (s) {
		for (size_t i = 0; i < s->top_count; i++)
			if (s->top_functions[i] >= r->function_count)
				return ecp_error_set(
				    err, ECP_ERR_USAGE,
				    "HTML report: scan top function #%zu out of range",
				    i);
		for (size_t i = 0; i < s->crossover_count; i++)
			if (s->crossovers[i].before >= r->function_count ||
			    s->crossovers[i].after >= r->function_count)
				return ecp_error_set(
				    err, ECP_ERR_USAGE,
				    "HTML report: crossover #%zu names an unknown "
				    "function",
				    i);
		for (size_t i = 1; i < s->count; i++)
			if (s->processors[i] <= s->processors[i - 1])
				return ecp_error_set(
				    err, ECP_ERR_USAGE,
				    "HTML report: scan processors not increasing "
				    "at #%zu",
				    i);
	}
	for (size_t i = 1; i < r->step_count; i++)
		if (r->steps[i].time_ns < r->steps[i - 1].time_ns)
			return ecp_error_set(
			    err, ECP_ERR_USAGE,
			    "HTML report: parallelism step #%zu goes back in time", i);
	return ECP_OK;
}

static void summary_item(FILE *out, const char *label, const char *value, bool escape)
{
	fprintf(out, "<div><dt>%s</dt><dd>", label);
	if (escape)
		ecp_html_text(out, value);
	else
		fputs(value, out);
	fputs("</dd></div>", out);
}

static void write_header(struct ecp_html_ctx *c)
{
	FILE *out = c->out;
	const struct ecp_html_report *r = c->r;
	char buf[64];
	fputs("<header><h1>", out);
	ecp_html_text(out, r->title ? r->title : "ecp report");
	fputs("</h1><dl class=\"summary\">", out);
	if (r->program)
		summary_item(out, "program", r->program, true);
	if (r->trace_path)
		summary_item(out, "trace", r->trace_path, true);
	snprintf(buf, sizeof(buf), "%" PRIu32, r->processors);
	summary_item(out, "processors P", buf, false);
	summary_item(out, "predicted T<sub>P</sub>",
		     ecp_format_ns(buf, sizeof(buf), (double)r->makespan_ns), false);
	summary_item(out, "work T<sub>1</sub>",
		     ecp_format_ns(buf, sizeof(buf), (double)r->work_ns), false);
	summary_item(out, "span T<sub>&#8734;</sub>",
		     ecp_format_ns(buf, sizeof(buf), (double)r->span_ns), false);
	if (r->span_ns > 0) {
		snprintf(buf, sizeof(buf), "%.2f",
			 (double)r->work_ns / (double)r->span_ns);
		summary_item(out, "parallelism T<sub>1</sub>/T<sub>&#8734;</sub>", buf,
			     false);
	}
	if (r->makespan_ns > 0) {
		snprintf(buf, sizeof(buf), "%.2f",
			 (double)r->work_ns / (double)r->makespan_ns);
		summary_item(out, "predicted speedup", buf, false);
	}
	snprintf(buf, sizeof(buf), "%zu", r->thread_count);
	summary_item(out, "threads", buf, false);
	fputs("</dl>", out);
	if (r->warning_count) {
		fputs("<div class=\"warnings\"><b>Warnings</b><ul>", out);
		for (size_t i = 0; i < r->warning_count; i++) {
			fputs("<li>", out);
			ecp_html_text(out, r->warnings[i]);
			fputs("</li>", out);
		}
		fputs("</ul></div>", out);
	}
	fputs("</header>\n", out);
}

static void num_cell(FILE *out, double v, bool time)
{
	char buf[32];
	if (!isfinite(v)) {
		fputs("<td data-v=\"0\">&ndash;</td>", out);
		return;
	}
	if (time)
		fprintf(out, "<td data-v=\"%.17g\">%s</td>", v,
			ecp_format_ns(buf, sizeof(buf), v));
	else
		fprintf(out, "<td data-v=\"%.17g\">%.2f</td>", v, v);
}

static void write_table(struct ecp_html_ctx *c)
{
	FILE *out = c->out;
	const struct ecp_html_report *r = c->r;
	size_t n = r->row_count < ECP_HTML_MAX_TABLE_ROWS ? r->row_count
							  : ECP_HTML_MAX_TABLE_ROWS;
	fprintf(
	    out,
	    "<section id=\"functions\"><h2>5. Functions at P = %" PRIu32 "</h2>\n"
	    "<p class=\"note\">Calls on the ECP, TET (weight &times; exclusive time), "
	    "TETID "
	    "(weight &times; inclusive time), work (TET at P=1), span (TET at "
	    "P=&#8734;), "
	    "idleness charged while fewer than P threads run, and parallelism work/span. "
	    "Click a header to sort.</p>\n",
	    r->processors);
	fputs("<table id=\"ftable\"><thead><tr><th data-t=\"num\">#</th>"
	      "<th class=\"name\" data-t=\"text\">function</th><th "
	      "data-t=\"num\">calls</th>"
	      "<th data-t=\"num\">TET</th><th data-t=\"num\">TETID</th><th "
	      "data-t=\"num\">work</th>"
	      "<th data-t=\"num\">span</th><th data-t=\"num\">idle</th>"
	      "<th data-t=\"num\">parallelism</th></tr></thead><tbody>\n",
	      out);
	for (size_t i = 0; i < n; i++) {
		const struct ecp_html_function_row *row = &r->rows[i];
		uint32_t rank = c->local[row->function];
		char colour[40];
		ecp_html_colour(rank, colour, sizeof(colour));
		fprintf(out, "<tr><td data-v=\"%zu\">%zu</td><td class=\"name\" title=\"",
			i + 1, i + 1);
		ecp_html_name(out, ecp_html_fname(c, row->function),
			      ECP_HTML_MAX_NAME_CHARS);
		fprintf(out, "\"><i class=\"sw\" style=\"background:%s\"></i> ", colour);
		ecp_html_name(out, ecp_html_fname(c, row->function), 120);
		fprintf(out, "</td><td data-v=\"%" PRIu64 "\">%" PRIu64 "</td>",
			row->calls, row->calls);
		num_cell(out, row->tet_ns, true);
		num_cell(out, row->tetid_ns, true);
		num_cell(out, row->work_ns, true);
		num_cell(out, row->span_ns, true);
		num_cell(out, row->idle_ns, true);
		num_cell(out, row->span_ns > 0 ? row->work_ns / row->span_ns : NAN,
			 false);
		fputs("</tr>\n", out);
	}
	fputs("</tbody></table>\n", out);
	if (r->row_count > n)
		fprintf(out,
			"<p class=\"note cap\">The first %zu of %zu functions are listed "
			"(cap %d).</p>\n",
			n, r->row_count, ECP_HTML_MAX_TABLE_ROWS);
	else if (n == 0)
		fputs("<p class=\"note\">No function data was given.</p>\n", out);
	fputs("</section>\n", out);
}

/* Cilkprof's on-work profile: shown only when the program made tasks. */
static void write_spawn_table(struct ecp_html_ctx *c)
{
	FILE *out = c->out;
	const struct ecp_html_report *r = c->r;
	if (!r->spawn_count)
		return;
	fputs(
	    "<section id=\"spawn\"><h2>6. Spawn sites</h2>\n"
	    "<p class=\"note\">Each task-creating call site: the tasks made there, their "
	    "work with all their descendants (a recursion through the site counted "
	    "once), their span (the longest chain on unlimited processors), and "
	    "parallelism work/span.</p>\n"
	    "<table id=\"stable\"><thead><tr><th class=\"name\" data-t=\"text\">spawn "
	    "site</th><th data-t=\"num\">tasks</th><th data-t=\"num\">work</th>"
	    "<th data-t=\"num\">span</th><th data-t=\"num\">parallelism</th></tr>"
	    "</thead><tbody>\n",
	    out);
	for (size_t i = 0; i < r->spawn_count; i++) {
		const struct ecp_html_spawn_row *s = &r->spawn_rows[i];
		fputs("<tr><td class=\"name\">", out);
		ecp_html_name(out, s->name ? s->name : "", 120);
		fprintf(out, "</td><td data-v=\"%" PRIu64 "\">%" PRIu64 "</td>", s->tasks,
			s->tasks);
		num_cell(out, s->work_ns, true);
		num_cell(out, s->span_ns, true);
		num_cell(out, s->span_ns > 0 ? s->work_ns / s->span_ns : NAN, false);
		fputs("</tr>\n", out);
	}
	fputs("</tbody></table></section>\n", out);
}

/* Names the script reads back with textContent (never as markup). */
static void write_name_lists(struct ecp_html_ctx *c, size_t thread_rows)
{
	FILE *out = c->out;
	fputs("<ol id=\"fnames\" hidden>", out);
	for (size_t k = 0; k < c->named_count; k++) {
		fputs("<li>", out);
		ecp_html_name(out, ecp_html_fname(c, c->named[k]),
			      ECP_HTML_MAX_NAME_CHARS);
		fputs("</li>", out);
	}
	fputs("</ol>\n<ol id=\"tnames\" hidden>", out);
	for (size_t t = 0; t < thread_rows; t++) {
		fputs("<li>", out);
		if (c->r->thread_names && c->r->thread_names[t])
			ecp_html_name(out, c->r->thread_names[t], 100);
		else
			fprintf(out, "thread %zu", t);
		fputs("</li>", out);
	}
	fputs("</ol>\n", out);
}

int ecp_html_report_write(FILE *out, const struct ecp_html_report *r,
			  struct ecp_error *err)
{
	int rc = validate(r, err);
	if (rc)
		return rc;
	struct ecp_html_ctx c = {.out = out, .r = r};
	struct ecp_html_gantt *plan = NULL;
	size_t nf = r->function_count ? r->function_count : 1;
	c.local = malloc(nf * sizeof(*c.local));
	c.named = malloc(
	    (nf < ECP_HTML_MAX_NAMED_FUNCTIONS ? nf : ECP_HTML_MAX_NAMED_FUNCTIONS) *
	    sizeof(*c.named));
	if (!c.local || !c.named) {
		rc = ecp_error_set(err, ECP_ERR_NOMEM,
				   "out of memory writing the HTML report");
		goto out;
	}
	for (size_t i = 0; i < nf; i++)
		c.local[i] = ECP_HTML_NO_FUNCTION;
	/* Ranks, hence colours: the plotted functions, the table's, then the
	 * Gantt's.  Colours then agree across the charts. */
	if (r->scan)
		for (size_t i = 0;
		     i < r->scan->top_count && i < ECP_HTML_MAX_PLOT_FUNCTIONS; i++)
			ecp_html_rank(&c, r->scan->top_functions[i]);
	for (size_t i = 0; i < r->row_count && i < ECP_HTML_MAX_TABLE_ROWS; i++)
		ecp_html_rank(&c, r->rows[i].function);
	rc = ecp_html_gantt_plan(&c, &plan, err);
	if (rc)
		goto out;

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\n"
	      "<meta name=\"generator\" content=\"ecp\">\n<title>",
	      out);
	ecp_html_text(out, r->title ? r->title : "ecp report");
	fputs("</title>\n<style>\n", out);
	fputs(style_sheet, out);
	char colour[40];
	for (size_t k = 0; k < c.named_count; k++) {
		ecp_html_colour((uint32_t)k, colour, sizeof(colour));
		fprintf(out, ".c%zu{fill:%s;background:%s}", k, colour, colour);
	}
	ecp_html_colour(ECP_HTML_NO_FUNCTION, colour, sizeof(colour));
	fprintf(out, ".cx{fill:%s;background:%s}\n</style></head>\n<body><main>\n",
		colour, colour);
	write_header(&c);
	ecp_html_gantt_write(&c, plan);
	ecp_html_parallelism_write(&c);
	fputs("<div class=\"row\">\n", out);
	ecp_html_tet_plot_write(&c);
	ecp_html_speedup_write(&c);
	fputs("</div>\n", out);
	write_table(&c);
	write_spawn_table(&c);
	size_t cap = r->max_segments ? r->max_segments : ECP_HTML_DEFAULT_MAX_SEGMENTS;
	fprintf(
	    out,
	    "<footer>Generated by ecp. Self-contained: nothing is loaded from the "
	    "network. "
	    "Size bounds: %zu Gantt bars, %d thread rows, %d synchronization symbols, %d "
	    "table rows",
	    cap, ECP_HTML_MAX_THREAD_ROWS, ECP_HTML_MAX_MARKS, ECP_HTML_MAX_TABLE_ROWS);
	/* The size bound is computed for the default bar cap (html-report.h). */
	if (cap <= ECP_HTML_DEFAULT_MAX_SEGMENTS)
		fprintf(out, "; the file stays under %u MiB whatever the trace",
			ECP_HTML_SIZE_BOUND >> 20);
	fputs(".</footer>\n", out);
	write_name_lists(&c, r->thread_count < ECP_HTML_MAX_THREAD_ROWS
				 ? r->thread_count
				 : ECP_HTML_MAX_THREAD_ROWS);
	fputs("<div id=\"tip\"></div>\n</main>\n<script>\n", out);
	for (size_t i = 0; script[i]; i++)
		fputs(script[i], out);
	fputs("</script>\n</body></html>\n", out);
	if (fflush(out) != 0 || ferror(out))
		rc = ecp_error_set(err, ECP_ERR_IO, "failed to write the HTML report");
out:
	ecp_html_gantt_destroy(plan);
	free(c.local);
	free(c.named);
	return rc;
}
