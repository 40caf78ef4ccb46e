set terminal pngcairo size 900,520 noenhanced font 'sans,11'
set grid
set key top left
set output 'ladder.png'
set xlabel 'offline labels/s (sift score --mode mis, 2 threads)'
set ylabel 'agreement with reference labels (mean over seeds)'
set logscale x
set key bottom left
plot 'ladder.tsv' u 2:3 w lp lw 2 pt 7 t 'labelers by size', '' u 2:3:1 w labels offset 1,1 notitle
