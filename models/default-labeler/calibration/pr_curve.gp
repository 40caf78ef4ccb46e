# Precision-recall curve and score histogram written by `sift calibrate`; redraw them in this folder with: gnuplot pr_curve.gp
if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
  set terminal pngcairo size 1400,650 noenhanced font 'sans,11'
} else {
  set terminal png size 1400,650 noenhanced
}
set output 'pr_curve.png'
set datafile separator '\t'
set multiplot layout 1,2 title 'default-labeler: trained-seed1-step12852+cal1-f1 on validation.jsonl (target f1)'
set title 'precision-recall, average precision 0.9221'
set xlabel 'recall'
set ylabel 'precision'
set xrange [0:1.02]
set yrange [0:1.02]
set grid
set key bottom left
plot 'pr_curve.tsv' using 3:($3 > 0 ? $2 : 1/0) skip 1 with linespoints pt 7 ps 0.4 lc rgb '#1f77b4' title '77860 items, 31395 YES', \
     '-' using 1:2 with points pt 6 ps 2.5 lw 2 lc rgb '#d62728' title 'threshold 0.4402: P 0.947, R 0.904, F1 0.925'
0.9037426341774167	0.9471242113696298
e
set title 'scores by reference label'
set xlabel 'score'
set ylabel 'items'
set xrange [0:1]
set autoscale y
set yrange [0:*]
set key top center
set style fill transparent solid 0.45 noborder
set arrow 1 from 0.4401578562710706, graph 0 to 0.4401578562710706, graph 1 nohead lw 2 dt 2 lc rgb '#d62728'
plot 'score_histogram.tsv' using (($1 + $2) / 2):4:($2 - $1) skip 1 with boxes lc rgb '#7f7f7f' title 'reference NO', \
     '' using (($1 + $2) / 2):3:($2 - $1) skip 1 with boxes lc rgb '#2ca02c' title 'reference YES'
unset multiplot
