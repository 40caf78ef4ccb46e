set terminal pngcairo size 900,520 noenhanced font 'sans,11'
set grid
set key top left
set output 'serving.png'
set xlabel 'candidates per request (N)'
set ylabel 'labels/s at p99 <= 1 s'
set xtics (20, 50, 100, 200)
plot 'serving.tsv' u 1:2 w lp lw 2 t 'mis', '' u 1:3 w lp lw 2 t 'packed generation', '' u 1:4 w lp lw 2 t 'independent'
