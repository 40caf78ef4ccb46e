set terminal pngcairo size 900,520 noenhanced font 'sans,11'
set grid
set key top left
set output 'agreement.png'
set logscale x
set xlabel 'training pairs'
set ylabel 'agreement with reference labels (mean, 95% interval)'
plot 'quality.tsv' u 1:2:3 w yerrorlines lw 2 t 'scoring (MIS)', '' u 1:4:5 w yerrorlines lw 2 t 'packed generation', 0.7404375 w l dt 2 lc 'gray' t 'best profile-blind answer (scoring)', 0.7471875 w l dt 3 lc 'black' t 'best profile-blind answer (generation)'
