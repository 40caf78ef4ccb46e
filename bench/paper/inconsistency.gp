set terminal pngcairo size 900,520 noenhanced font 'sans,11'
set grid
set key top left
set output 'inconsistency.png'
set logscale x
set xlabel 'training pairs'
set ylabel 'labels changed by reordering (%, mean over seeds)'
plot 'quality.tsv' u 1:($6*100) w lp lw 2 t 'scoring (MIS)', '' u 1:($7*100) w lp lw 2 t 'packed generation'
